import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CreateCheckoutSessionCommand } from '../application/create-checkout-session.js';
import { ExpireCheckoutSessionCommand, GetCheckoutSessionQuery, ListCheckoutSessionsQuery } from '../application/checkout-session-queries.js';
import { CreateCheckoutSessionDto, ListCheckoutSessionsParams } from './dto/checkout-session.dto.js';
import { ApiResource } from '#http/api-resource.js';

/** The spec names the path in the singular (`/v1/checkout_session`); the list and expire live beside it. */
@ApiTags('checkout sessions')
@ApiBasicAuth()
@ApiResource('checkout_sessions')
@Controller('v1/checkout_session')
export class CheckoutSessionsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a checkout session (the flat session object; url carries the signed token after #)' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateCheckoutSessionDto) {
    return this.write.execute(new CreateCheckoutSessionCommand(ctx, body as never), ({ id }) => new GetCheckoutSessionQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List checkout sessions, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListCheckoutSessionsParams) {
    return this.queries.execute(new ListCheckoutSessionsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a checkout session' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetCheckoutSessionQuery(ctx, id));
  }

  @Post(':id/expire')
  @HttpCode(200)
  @ApiOperation({ summary: 'Expire an open checkout session now (checkout_session.expired)' })
  expire(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.write.execute(new ExpireCheckoutSessionCommand(ctx, id), () => new GetCheckoutSessionQuery(ctx, id));
  }
}
