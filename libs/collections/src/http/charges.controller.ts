import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { GetChargeQuery } from '../application/get-charge.js';
import { GetTransactionQuery } from '../application/get-transaction.js';
import { ListChargesQuery } from '../application/list-charges.js';
import { ListTransactionsQuery } from '../application/list-transactions.js';
import { ListChargesParams, ListTransactionsParams } from './dto/collection.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('charges')
@ApiBasicAuth()
@ApiResource('charges')
@Controller('v1')
export class ChargesController {
  constructor(private readonly queries: QueryBus) {}

  @Get('charges')
  @ApiOperation({ summary: 'List charges (gateway-level tries), newest first; filter by collection, customer, transaction, status' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListChargesParams) {
    return this.queries.execute(new ListChargesQuery(ctx, params));
  }

  @Get('charges/:id')
  @ApiOperation({ summary: 'Get a charge' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetChargeQuery(ctx, id));
  }

  @Get('transactions')
  @ApiOperation({ summary: 'List transactions (payment attempts), newest first; filter by collection' })
  listTransactions(@Ctx() ctx: CommandContext, @Query() params: ListTransactionsParams) {
    return this.queries.execute(new ListTransactionsQuery(ctx, params));
  }

  @Get('transactions/:id')
  @ApiOperation({ summary: 'Get a transaction' })
  getTransaction(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetTransactionQuery(ctx, id));
  }
}
