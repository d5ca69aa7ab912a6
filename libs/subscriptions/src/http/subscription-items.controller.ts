import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { ChangeSubscriptionItemCommand } from '../application/change-subscription-item.js';
import { GetSubscriptionItemQuery } from '../application/get-subscription-item.js';
import { CreateSubscriptionItemDto, UpdateSubscriptionItemDto } from './dto/subscription.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('subscriptions')
@ApiBasicAuth()
@ApiResource('subscription_items')
@Controller('v1/subscription_items')
export class SubscriptionItemsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Add an item (price, quantity) to a subscription' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateSubscriptionItemDto) {
    return this.write.execute(new ChangeSubscriptionItemCommand(ctx, body), ({ id }) => new GetSubscriptionItemQuery(ctx, id));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a subscription item' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetSubscriptionItemQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Change the quantity, price or ntp amount of a subscription item' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateSubscriptionItemDto) {
    return this.write.execute(new ChangeSubscriptionItemCommand(ctx, { ...body, id }), () => new GetSubscriptionItemQuery(ctx, id));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove an item from its subscription (the last recurring item cannot be removed)' })
  async delete(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new ChangeSubscriptionItemCommand(ctx, { id, deleted: true }));
    return { id, object: 'subscription_item', deleted: true };
  }
}
