import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { DomainError } from '#shared/errors.js';
import { Ctx } from '#http/request-context.js';
import { GetCollectionQuery } from '../application/get-collection.js';
import { PayCollectionCommand } from '../application/pay-collection.js';
import { SettleProcessingPaymentCommand } from '../application/settle-processing-payment.js';
import { PayCollectionDto } from './dto/collection.dto.js';
import { ApiResource } from '#http/api-resource.js';

const testOnly = (ctx: CommandContext) => {
  if (ctx.mode !== 'test') throw new DomainError('test_mode_only', 'Test helpers are only available with a test key', null, 403);
};

/** Test mode: play the customer's part (hosted page, PSE redirect, cash voucher). */
@ApiTags('test helpers')
@ApiBasicAuth()
@ApiResource('collections')
@Controller('v1/test_helpers/collections')
export class CollectionTestHelpersController {
  constructor(private readonly write: WriteThenRead) {}

  @Post(':id/settle')
  @HttpCode(200)
  @ApiOperation({ summary: 'Test mode: the customer completes the processing payment (PSE, voucher): collection paid' })
  settle(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.write.execute(new SettleProcessingPaymentCommand(ctx, id, 'succeeded'), () => new GetCollectionQuery(ctx, id));
  }

  @Post(':id/fail')
  @HttpCode(200)
  @ApiOperation({ summary: 'Test mode: the customer abandons the processing payment: collection.payment_failed, back to pending' })
  fail(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.write.execute(new SettleProcessingPaymentCommand(ctx, id, 'failed'), () => new GetCollectionQuery(ctx, id));
  }

  @Post(':id/customer_payment')
  @HttpCode(200)
  @ApiOperation({
    summary: "Test mode: the customer pays on the collection's hosted page (checkout_url) with payment_information (default: test card 4242… on gateway_a)",
  })
  customerPayment(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: PayCollectionDto) {
    testOnly(ctx);
    const payment = body.payment_information || body.payment_method ? body : { payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030 } } };
    return this.write.execute(new PayCollectionCommand(ctx, id, payment, 'customer'), () => new GetCollectionQuery(ctx, id));
  }
}
