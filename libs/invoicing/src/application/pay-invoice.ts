import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { laterPosition } from '#event-store/positions.js';
import { DomainError, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { ownedBy } from '#shared/owner.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { CollectionPayments } from '#collections/application/collection-payments.js';
import { createReceipt } from '#collections/application/receipt-collection.js';
import { Invoicing } from './invoicing.js';
import { InvoiceTime } from './invoice-time.js';

export class PayInvoiceCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly invoiceId: string,
    readonly body: { amount?: string },
  ) {}
}

/**
 * Records a payment made outside (out of band) against an invoice, through its collection: the whole
 * amount due pays the collection (`collection.paid`, out of band); less lowers it
 * (`collection.payment_applied`) and a paid receipt collection records the money (as a registered
 * payment does). Either way the invoice records the payment. More than the amount due: 400.
 */
@CommandHandler(PayInvoiceCommand)
export class PayInvoiceHandler implements ICommandHandler<PayInvoiceCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly invoicing: Invoicing,
    private readonly time: InvoiceTime,
    private readonly payments: CollectionPayments,
  ) {}

  async execute({ ctx: request, invoiceId, body }: PayInvoiceCommand): Promise<CommandResult> {
    const state = await this.invoicing.invoice(invoiceId);
    if (!state || !ownedBy(state, request)) throw notFound('invoice', invoiceId);
    const f = state.fields!;
    const ctx = await this.time.ctxFor(request, f.test_clock);
    const cur = currencyOf(f.currency)!;
    const collection = f.collection ? (await this.executor.load(collectionDecider, collectionStream(f.collection))).state.fields : null;
    if (!collection || !['pending', 'past_due', 'uncollectible'].includes(collection.status)) {
      throw new DomainError('invalid_state', `Cannot pay invoice ${invoiceId}: it has no open collection (its status is ${f.status})`, null, 409);
    }
    const amount = body.amount ?? formatAmount(Money.min(f.amount_due, collection.total), cur);
    if (new Money(amount).gt(f.amount_due)) throw new DomainError('amount_exceeds_balance', `amount ${amount} is more than the amount due on invoice ${invoiceId}: ${f.amount_due}`, 'amount', 400);
    const receiptId = newId('col');
    const collectionId = f.collection!;
    const applied = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'ApplyRegisteredPayment' as const, owner: ctx, collectionId, receiptId, amount, expectedTotal: collection.total, now }),
      ctx,
    );
    let position = applied.position;
    const receipt = await createReceipt(this.executor, ctx, {
      receiptId,
      customerId: f.customer,
      billingAddress: collection.billing_address,
      currency: f.currency,
      amount,
      description: `Payment of invoice ${f.number ?? invoiceId}`,
      appliedTo: [{ collection: collectionId, amount }],
      invoices: [invoiceId],
      billingReason: 'invoice_payment',
      checkoutUrl: collection.checkout_url,
      testClock: f.test_clock,
    });
    position = laterPosition(position, receipt);
    position = laterPosition(position, await this.invoicing.registeredPaymentApplied(ctx, collectionId, receiptId, amount));
    const paid = applied.events.find((e) => e.type === 'collection.paid');
    if (paid) position = laterPosition(position, await this.payments.followUpPaid(ctx, collectionId));
    return { id: invoiceId, position };
  }
}
