import type { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { BillingAddress } from '#customers/domain/customer.decider.js';
import { type AppliedPayment, collectionDecider, collectionStream } from '../domain/collection.decider.js';

export interface ReceiptInput {
  receiptId: string;
  customerId: string;
  billingAddress: BillingAddress | null;
  currency: string;
  /** The money received (the receipt's total); `appliedTo` may sum to less. */
  amount: string;
  description: string;
  appliedTo: AppliedPayment[];
  /** The fiscal invoices of the collections in `appliedTo` (the receipt's `invoices`). */
  invoices: string[];
  /** `invoices_payment` (register_invoices_payment) or `invoice_payment` (POST /v1/invoices/{id}/pay). */
  billingReason: 'invoices_payment' | 'invoice_payment';
  checkoutUrl: string;
  testClock: string | null;
}

/**
 * The paid receipt collection that records money received outside the service and what it went to
 * (`collection.created` + `collection.paid`, out of band, at once): no items, total = the amount,
 * `applied_to`, no subscription, no due date. One place for both register_invoices_payment and an
 * invoice's pay.
 */
export async function createReceipt(executor: AggregateExecutor, ctx: CommandContext, r: ReceiptInput): Promise<string | null> {
  const { position } = await executor.execute(
    collectionDecider,
    collectionStream(r.receiptId),
    (now) => ({
      type: 'CreateItemlessCollection' as const,
      owner: ctx,
      collectionId: r.receiptId,
      input: {
        kind: 'receipt' as const,
        customer: { id: r.customerId, billing_address: r.billingAddress },
        subscription: null,
        currency: r.currency,
        total: r.amount,
        description: r.description,
        meta_data: {},
        invoice_settings: { invoice_document_id: null, invoice_cost_center: null },
        invoice_retentions: { reteica: null, retefte: null },
        collection_rule_id: null,
        due_date: null,
        balance_of: null,
        applied_to: r.appliedTo,
        invoices: r.invoices,
        billing_reason: r.billingReason,
        checkout_url: r.checkoutUrl,
        test_clock: r.testClock,
      },
      now,
    }),
    ctx,
  );
  return position;
}
