import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CancelSubscriptionCommand } from '../application/cancel-subscription.js';
import { CreateSubscriptionCommand } from '../application/create-subscription.js';
import { DeleteSubscriptionDiscountCommand } from '../application/delete-subscription-discount.js';
import { GetSubscriptionHistoryQuery } from '../application/get-subscription-history.js';
import { GetSubscriptionQuery } from '../application/get-subscription.js';
import { ListSubscriptionsQuery } from '../application/list-subscriptions.js';
import { PauseSubscriptionCommand } from '../application/pause-subscription.js';
import { ResumeSubscriptionCommand } from '../application/resume-subscription.js';
import { SetSubscriptionShippingItemCommand } from '../application/set-subscription-shipping-item.js';
import { SetSubscriptionShippingCommand } from '../application/set-subscription-shipping.js';
import { UpdateSubscriptionCommand } from '../application/update-subscription.js';
import {
  CancelSubscriptionDto,
  CreateSubscriptionDto,
  GetSubscriptionParams,
  HistoryParams,
  ListSubscriptionsParams,
  MigrateSubscriptionDto,
  PauseSubscriptionDto,
  SubscriptionShippingDto,
  SubscriptionShippingItemDto,
  UpdateSubscriptionDto,
} from './dto/subscription.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('subscriptions')
@ApiBasicAuth()
@ApiResource('subscriptions')
@Controller('v1/subscriptions')
export class SubscriptionsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  private respond(ctx: CommandContext, command: object) {
    return this.write.execute(command, ({ id }) => new GetSubscriptionQuery(ctx, id));
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a subscription (charge: first collection attempted in the same request; collect: collection sent)' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateSubscriptionDto) {
    return this.respond(ctx, new CreateSubscriptionCommand(ctx, body as never));
  }

  @Post('migrate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Import an existing subscription: no collection, no payment, next_renewal_date honoured' })
  migrate(@Ctx() ctx: CommandContext, @Body() body: MigrateSubscriptionDto) {
    return this.respond(ctx, new CreateSubscriptionCommand(ctx, body as never, true));
  }

  @Get()
  @ApiOperation({ summary: 'List subscriptions, newest first; filter by customer and status' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListSubscriptionsParams) {
    return this.queries.execute(new ListSubscriptionsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a subscription; as_of (time or evt_ id) rebuilds it as it stood then' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string, @Query() params: GetSubscriptionParams) {
    return this.queries.execute(new GetSubscriptionQuery(ctx, id, params.as_of));
  }

  @Get(':id/history')
  @ApiOperation({ summary: 'Every event of the subscription and of its collections, transactions and charges, oldest first' })
  history(@Ctx() ctx: CommandContext, @Param('id') id: string, @Query() params: HistoryParams) {
    return this.queries.execute(new GetSubscriptionHistoryQuery(ctx, id, params));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update items, quantities, discounts, payment method, invoicing settings, meta_data' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateSubscriptionDto) {
    return this.respond(ctx, new UpdateSubscriptionCommand(ctx, id, body as never));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel: cancel_at period_end (pending_cancel) or now (canceled)' })
  cancel(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: CancelSubscriptionDto) {
    return this.respond(ctx, new CancelSubscriptionCommand(ctx, id, body.cancel_at));
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause an active subscription, optionally until resumes_at' })
  pause(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: PauseSubscriptionDto) {
    return this.respond(ctx, new PauseSubscriptionCommand(ctx, id, body.resumes_at ?? null));
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume a paused subscription (back to active), or withdraw a cancellation scheduled for later (pending_cancel back to active; subscription.cancellation_withdrawn)' })
  resume(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.respond(ctx, new ResumeSubscriptionCommand(ctx, id));
  }

  @Post(':id/shipping')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set where the subscription ships (name, phone, address)' })
  shipping(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: SubscriptionShippingDto) {
    return this.respond(ctx, new SetSubscriptionShippingCommand(ctx, id, { name: body.name, phone: body.phone ?? null, address: { ...body.address, address_2: body.address.address_2 ?? null, postcode: body.address.postcode ?? null, country: body.address.country.toUpperCase() } }));
  }

  @Post(':id/shipping_item')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the shipping charge billed with each next collection' })
  shippingItem(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: SubscriptionShippingItemDto) {
    return this.respond(ctx, new SetSubscriptionShippingItemCommand(ctx, id, body));
  }

  @Delete(':id/discounts/:discount')
  @ApiOperation({ summary: 'Delete a discount of the subscription' })
  deleteDiscount(@Ctx() ctx: CommandContext, @Param('id') id: string, @Param('discount') discount: string) {
    return this.respond(ctx, new DeleteSubscriptionDiscountCommand(ctx, id, discount));
  }
}
