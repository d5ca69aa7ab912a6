import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CreateCustomerCommand } from '../application/create-customer.js';
import { GetCustomerQuery } from '../application/get-customer.js';
import { ListCustomerPaymentMethodsQuery } from '../application/list-customer-payment-methods.js';
import { ListCustomersQuery } from '../application/list-customers.js';
import { UpdateCustomerCommand } from '../application/update-customer.js';
import { type CustomerErasure, EraseCustomerCommand } from '../application/erase-customer.js';
import { CreateCustomerDto, ListCustomersParams, ListPaymentMethodsParams, UpdateCustomerDto } from './dto/customer.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('customers')
@ApiBasicAuth()
@ApiResource('customers')
@Controller('v1/customers')
export class CustomersController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a customer (409 when the email is already used in this mode)' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateCustomerDto) {
    return this.write.execute(new CreateCustomerCommand(ctx, body), ({ id }) => new GetCustomerQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List customers, newest first; filter by email' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListCustomersParams) {
    return this.queries.execute(new ListCustomersQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a customer' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetCustomerQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a customer (partial; meta_data merges; billing_address is replaced whole)' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateCustomerDto) {
    return this.write.execute(new UpdateCustomerCommand(ctx, id, body), () => new GetCustomerQuery(ctx, id));
  }

  @Post(':id/erase')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Erase a customer's personal data (crypto-shredding, docs/personal-data.md): its key is destroyed, its subscriptions canceled now, its payment methods removed; what tax law keeps of issued invoices is kept apart",
  })
  async erase(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    const { position, ...erasure } = (await this.write.run(new EraseCustomerCommand(ctx, id))) as unknown as CustomerErasure;
    void position;
    return erasure;
  }

  @Get(':id/payment_methods')
  @ApiResource('payment_methods')
  @ApiOperation({ summary: "List a customer's payment methods" })
  paymentMethods(@Ctx() ctx: CommandContext, @Param('id') id: string, @Query() params: ListPaymentMethodsParams) {
    return this.queries.execute(new ListCustomerPaymentMethodsQuery(ctx, id, params));
  }
}
