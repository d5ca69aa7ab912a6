import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { GetCollectionQuery } from '../application/get-collection.js';
import { RegisterInvoicesPaymentCommand } from '../application/register-invoices-payment.js';
import { RegisterInvoicesPaymentDto } from './dto/collection.dto.js';
import { ApiResource } from '#http/api-resource.js';

/** Collection operations addressed by customer (the spec's `/v1/customers/{id}/register_invoices_payment`). */
@ApiTags('collections')
@ApiBasicAuth()
@ApiResource('collections')
@Controller('v1/customers')
export class CustomerPaymentsController {
  constructor(private readonly write: WriteThenRead) {}

  @Post(':id/register_invoices_payment')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Register one payment covering several of the customer's open collections (overdue oldest first, then upcoming nearest first); answers with the paid receipt collection",
  })
  registerInvoicesPayment(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: RegisterInvoicesPaymentDto) {
    return this.write.execute(new RegisterInvoicesPaymentCommand(ctx, id, body), ({ id: receipt }) => new GetCollectionQuery(ctx, receipt));
  }
}
