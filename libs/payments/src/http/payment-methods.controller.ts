import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { DeletePaymentMethodCommand } from '../application/delete-payment-method.js';
import { GetPaymentMethodQuery } from '../application/get-payment-method.js';
import { MigratePaymentMethodCommand } from '../application/migrate-payment-method.js';
import { UpdatePaymentMethodCommand } from '../application/update-payment-method.js';
import { MigratePaymentMethodDto, UpdatePaymentMethodDto } from './dto/payment-method.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('payment methods')
@ApiBasicAuth()
@ApiResource('payment_methods')
@Controller('v1/payment_methods')
export class PaymentMethodsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post('migrate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Import a gateway token from another system as a payment method of a customer' })
  migrate(@Ctx() ctx: CommandContext, @Body() body: MigratePaymentMethodDto) {
    return this.write.execute(new MigratePaymentMethodCommand(ctx, body), ({ id }) => new GetPaymentMethodQuery(ctx, id));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a payment method (never its token)' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetPaymentMethodQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: "Update a payment method (card expiry, meta_data; default: true makes it the customer's default)" })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdatePaymentMethodDto) {
    return this.write.execute(new UpdatePaymentMethodCommand(ctx, id, body), () => new GetPaymentMethodQuery(ctx, id));
  }

  @Post(':id/delete')
  @HttpCode(200)
  @ApiOperation({ summary: "Delete (detach) a payment method; clears the customer's default if it was this one" })
  async delete(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new DeletePaymentMethodCommand(ctx, id));
    return { id, object: 'payment_method', deleted: true };
  }
}
