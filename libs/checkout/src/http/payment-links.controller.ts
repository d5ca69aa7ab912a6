import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { ListQuery } from '#http/list.js';
import {
  CreatePaymentLinkCommand,
  CreateStorefrontCommand,
  GetPaymentLinkQuery,
  GetStorefrontQuery,
  ListPaymentLinksQuery,
  ListStorefrontsQuery,
  UpdatePaymentLinkCommand,
  UpdateStorefrontCommand,
} from '../application/payment-link-commands.js';
import { CreatePaymentLinkDto, CreateStorefrontDto, ListPaymentLinksParams, UpdatePaymentLinkDto, UpdateStorefrontDto } from './dto/checkout-session.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('payment links')
@ApiBasicAuth()
@ApiResource('payment_links')
@Controller('v1/payment_links')
export class PaymentLinksController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a payment link ({checkout_url}/pl/<id>): recurring prices make subscriptions, one-time prices single collections' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreatePaymentLinkDto) {
    return this.write.execute(new CreatePaymentLinkCommand(ctx, body as never), ({ id }) => new GetPaymentLinkQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List payment links, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListPaymentLinksParams) {
    return this.queries.execute(new ListPaymentLinksQuery(ctx, { ...params, active: params.active === undefined ? undefined : params.active === 'true' }));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a payment link (times_used counts paid visits)' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetPaymentLinkQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a payment link (active: false deactivates it)' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdatePaymentLinkDto) {
    return this.write.execute(new UpdatePaymentLinkCommand(ctx, id, body as never), () => new GetPaymentLinkQuery(ctx, id));
  }
}

@ApiTags('storefronts')
@ApiBasicAuth()
@ApiResource('storefronts')
@Controller('v1/storefronts')
export class StorefrontsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a storefront ({checkout_url}/sf/<id>): several prices; choosing one opens a checkout session' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateStorefrontDto) {
    return this.write.execute(new CreateStorefrontCommand(ctx, body as never), ({ id }) => new GetStorefrontQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List storefronts, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListQuery) {
    return this.queries.execute(new ListStorefrontsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a storefront' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetStorefrontQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a storefront' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateStorefrontDto) {
    return this.write.execute(new UpdateStorefrontCommand(ctx, id, body as never), () => new GetStorefrontQuery(ctx, id));
  }
}
