import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CreateCollectionCommand } from '../application/create-collection.js';
import { DeleteCollectionDiscountCommand } from '../application/delete-collection-discount.js';
import { GetCollectionQuery } from '../application/get-collection.js';
import { ListCollectionsQuery } from '../application/list-collections.js';
import { MarkCollectionUncollectibleCommand } from '../application/mark-collection-uncollectible.js';
import { PayCollectionCommand } from '../application/pay-collection.js';
import { RefundCollectionCommand } from '../application/refund-collection.js';
import { SendCollectionCommand } from '../application/send-collection.js';
import { UpdateCollectionDiscountsCommand } from '../application/update-collection-discounts.js';
import { UpdateCollectionItemsCommand } from '../application/update-collection-items.js';
import { VoidCollectionCommand } from '../application/void-collection.js';
import { DefinePartialPaymentCommand } from '../application/define-partial-payment.js';
import { UpdateCollectionTotalCommand } from '../application/update-collection-total.js';
import {
  CreateCollectionDto,
  ListCollectionsParams,
  PartialPaymentDto,
  PayCollectionDto,
  RefundCollectionDto,
  UpdateCollectionDiscountsDto,
  UpdateCollectionItemsDto,
  UpdateCollectionTotalDto,
} from './dto/collection.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('collections')
@ApiBasicAuth()
@ApiResource('collections')
@Controller('v1/collections')
export class CollectionsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  /** Runs a command on collection `id` and answers with the collection as a GET would show it. */
  private respond(ctx: CommandContext, command: object) {
    return this.write.execute(command, ({ id }) => new GetCollectionQuery(ctx, id));
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a standalone collection (one-time items, no subscription)' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateCollectionDto) {
    return this.respond(ctx, new CreateCollectionCommand(ctx, body));
  }

  @Get()
  @ApiOperation({ summary: 'List collections, newest first; filter by customer, subscription, status' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListCollectionsParams) {
    return this.queries.execute(new ListCollectionsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a collection' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetCollectionQuery(ctx, id));
  }

  @Post(':id/pay')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pay a collection (stored payment_method, payment_information, the default method, or paid_out_of_band); 402 when declined',
  })
  pay(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: PayCollectionDto) {
    return this.respond(ctx, new PayCollectionCommand(ctx, id, body));
  }

  @Post(':id/void')
  @HttpCode(200)
  @ApiOperation({ summary: 'Void a pending, past_due or uncollectible collection' })
  void(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.respond(ctx, new VoidCollectionCommand(ctx, id));
  }

  @Post(':id/refund')
  @HttpCode(200)
  @ApiOperation({ summary: 'Refund a paid collection, fully or partly (amount)' })
  refund(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: RefundCollectionDto) {
    return this.respond(ctx, new RefundCollectionCommand(ctx, id, body));
  }

  @Post(':id/mark_refunded')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record a refund made outside the service (no gateway call)' })
  markRefunded(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: RefundCollectionDto) {
    return this.respond(ctx, new RefundCollectionCommand(ctx, id, body, true));
  }

  @Post(':id/mark_uncollectible')
  @HttpCode(200)
  @ApiOperation({ summary: 'Mark a pending or past_due collection uncollectible' })
  markUncollectible(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.respond(ctx, new MarkCollectionUncollectibleCommand(ctx, id));
  }

  @Post(':id/send')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send the collection notification (hosted page link) to the customer' })
  send(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.respond(ctx, new SendCollectionCommand(ctx, id));
  }

  @Post(':id/update/items')
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the items of a pending or past_due collection' })
  updateItems(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateCollectionItemsDto) {
    return this.respond(ctx, new UpdateCollectionItemsCommand(ctx, id, body.items));
  }

  @Post(':id/update/discounts')
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the discounts of a pending or past_due collection' })
  updateDiscounts(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateCollectionDiscountsDto) {
    return this.respond(ctx, new UpdateCollectionDiscountsCommand(ctx, id, body.discounts));
  }

  @Post(':id/update/total')
  @HttpCode(200)
  @ApiOperation({
    deprecated: true,
    summary: 'Set the total of a collection without items (a partial payment\'s balance) within its invoice; 400 collection_total_not_updatable names the condition not met',
    description: [
      'All of these must hold: (1) status pending, past_due or uncollectible; (2) no items (items null); (3) type invoice;',
      '(4) the new total ≤ the invoice balance; (5) the new total plus the totals of the invoice\'s other collections ≤ the invoice total.',
      'With a fiscal invoice the balance is invoice.total − invoice.total_paid − invoice.amount_credited, and the cap of (5) is',
      'invoice.total − invoice.amount_credited: what its credit notes took off is never asked for again (the collection\'s own total',
      'already had it taken off). This departs from the spec\'s formula (invoice.total − invoice.total_paid), which has no credit notes;',
      'without credit notes both are the same.',
    ].join(' '),
  })
  updateTotal(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateCollectionTotalDto) {
    return this.respond(ctx, new UpdateCollectionTotalCommand(ctx, id, body.total));
  }

  @Post(':id/partial_payment')
  @HttpCode(200)
  @ApiOperation({
    deprecated: true,
    summary: 'Lower the total of a collect collection to a partial amount; optionally create a collection for the balance',
  })
  partialPayment(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: PartialPaymentDto) {
    return this.respond(ctx, new DefinePartialPaymentCommand(ctx, id, body));
  }

  @Delete(':id/discounts/:discount')
  @ApiOperation({ summary: 'Delete one discount of a pending or past_due collection' })
  deleteDiscount(@Ctx() ctx: CommandContext, @Param('id') id: string, @Param('discount') discount: string) {
    return this.respond(ctx, new DeleteCollectionDiscountCommand(ctx, id, discount));
  }
}
