/** What can be asked of a collection. */
import type { AppliedPayment, CollectionMethod, InvoiceRetentions, InvoiceSettings, PaymentSource, RetrySchedule } from './collection.state.js';
import type { BillingAddress } from '#customers/domain/customer.decider.js';
import type { Discount, LineInput } from '../pricing.js';
import type { MetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';

/**
 * What the decider needs to know of a collection's invoice (the collection chain linked by
 * `balance_of`, computed by the handler from those collections' streams) to update its total.
 */
export interface InvoiceFigures {
  /** The invoice's id: the first collection of the chain. */
  id: string;
  /** invoice.total: the first collection's `partial_payment.original_total` (its total + amount applied when none). */
  total: string;
  /** invoice.total_paid: what its collections were paid (paid totals less refunds) plus amounts applied. */
  total_paid: string;
  /** What the invoice's other (not voided) collections account for (total + amount applied), plus this one's amount applied. */
  other_totals: string;
  /** With a fiscal invoice (invoicing enabled): what its credit notes took off; its balance is then total − total_paid − credited. */
  credited?: string;
}

/** A collection without items: the balance of a partial payment, or the receipt of a registered payment. */
export interface ItemlessCollectionInput {
  /** `invoice`: the collection opened for an uploaded invoice's balance (collect, due with the invoice). */
  kind: 'balance' | 'receipt' | 'invoice';
  customer: { id: string; billing_address: BillingAddress | null };
  subscription: string | null;
  currency: string;
  total: string;
  description: string;
  meta_data: MetaData;
  invoice_settings: InvoiceSettings;
  invoice_retentions: InvoiceRetentions;
  collection_rule_id: string | null;
  /** balance: required (collect; the partial payment's now + `days_until_due`). */
  due_date: string | null;
  /** balance: the collection whose partial payment this is the rest of. */
  balance_of: string | null;
  /** receipt: what the payment was applied to. */
  applied_to: AppliedPayment[] | null;
  /** receipt: the fiscal invoices of the collections it was applied to (its `invoices`), in the order applied. */
  invoices?: string[];
  billing_reason: string;
  checkout_url: string;
  test_clock?: string | null;
  retry_schedule?: RetrySchedule;
}

export interface CreateCollectionInput {
  customer: { id: string; billing_address: BillingAddress | null };
  subscription: string | null;
  currency: string;
  lines: LineInput[];
  discounts: Discount[];
  collection_method: CollectionMethod;
  days_until_due: number | null;
  description: string | null;
  meta_data: MetaData;
  invoice_settings: InvoiceSettings;
  invoice_retentions: InvoiceRetentions;
  collection_rule_id: string | null;
  billing_reason: string;
  checkout_url: string;
  test_clock?: string | null;
  retry_schedule?: RetrySchedule;
  /** Standalone collections: when its fiscal invoice is issued (null: none); `none` also switches off a subscription collection's. */
  invoicing?: 'create' | 'after' | 'none' | null;
  /** A `charge` renewal: due at once (its attempt is its due date; a failed attempt makes it past due). */
  due_immediately?: boolean;
}

export type ChargeOutcome =
  | { status: 'succeeded'; gateway_reference: string }
  | { status: 'failed'; gateway_reference: string | null; failure_code: string; failure_message: string; decline_code: string | null; retryable: boolean }
  | { status: 'pending'; gateway_reference: string; additional_data: Record<string, unknown> };

export type CollectionCommand =
  | { type: 'CreateCollection'; owner: Owner; collectionId: string; input: CreateCollectionInput; now: Date }
  | {
      type: 'StartPayment';
      owner: Owner;
      collectionId: string;
      transactionId: string;
      chargeId: string;
      source: PaymentSource;
      initiatedBy: 'merchant' | 'customer' | 'automatic';
      /** Automatic attempts name the attempt count they expect, so one deadline never attempts twice. */
      expectedAttempts?: number;
      now: Date;
    }
  /**
   * An automatic attempt (a charge renewal, a dunning retry) that cannot reach a gateway: no usable
   * method (none, deleted, expired card, gateway removed). Recorded as a failed attempt with its reason.
   */
  | { type: 'RecordUnattemptablePayment'; owner: Owner; collectionId: string; failure: { failure_code: string; failure_message: string }; expectedAttempts: number; now: Date }
  /** The due date passed unpaid. */
  | { type: 'MarkPastDue'; owner: Owner; collectionId: string; now: Date }
  /** A past-due collection's next dunning date came: a reminder (collect), or, retries spent, uncollectible. Charge retries are StartPayment. */
  | { type: 'AdvanceDunning'; owner: Owner; collectionId: string; now: Date; /** false: a charge collection with nothing to retry with is reminded instead. */ canRetry?: boolean }
  | { type: 'RetryCharge'; owner: Owner; collectionId: string; transactionId: string; chargeId: string; now: Date }
  | { type: 'AbandonTransaction'; owner: Owner; collectionId: string; transactionId: string; now: Date }
  | { type: 'RecordChargeOutcome'; owner: Owner; collectionId: string; chargeId: string; outcome: ChargeOutcome; now: Date }
  | { type: 'PayOutOfBand'; owner: Owner; collectionId: string; proof: string | null; now: Date }
  | { type: 'VoidCollection'; owner: Owner; collectionId: string; now: Date }
  | { type: 'MarkUncollectible'; owner: Owner; collectionId: string; now: Date }
  | { type: 'RefundCollection'; owner: Owner; collectionId: string; refundId: string; amount: string | null; reason: string | null; now: Date }
  | { type: 'SendCollection'; owner: Owner; collectionId: string; now: Date }
  | { type: 'UpdateCollectionItems'; owner: Owner; collectionId: string; lines: LineInput[]; now: Date }
  | { type: 'UpdateCollectionDiscounts'; owner: Owner; collectionId: string; discounts: Discount[]; now: Date }
  | { type: 'DeleteCollectionDiscount'; owner: Owner; collectionId: string; discountId: string; now: Date }
  /** `POST …/partial_payment`: the total becomes `amount`; `balance` names the collection to create for the rest. */
  | {
      type: 'DefinePartialPayment';
      owner: Owner;
      collectionId: string;
      amount: string;
      balance: { collectionId: string; days_until_due: number | null; collection_rule_id: string | null } | null;
      /** The collection's fiscal invoice, when it has one: the amount is weighed against its real amount due. */
      invoice?: { id: string; status: string; amount_due: string } | null;
      now: Date;
    }
  /** `POST …/update/total` (the spec's five conditions; `invoice` from the invoice's collections). */
  | { type: 'UpdateCollectionTotal'; owner: Owner; collectionId: string; total: string; invoice: InvoiceFigures; now: Date }
  /** Part of a registered payment (`receiptId`): pays the collection out of band when it covers `expectedTotal`, else lowers it. */
  | {
      type: 'ApplyRegisteredPayment';
      owner: Owner;
      collectionId: string;
      receiptId: string;
      amount: string;
      expectedTotal: string;
      /**
       * The amount settles the collection's fiscal invoice (its amount due, less than the collection's
       * total because credit notes took the rest off): the collection is paid — the amount applied and
       * the rest covered by the credit notes.
       */
      settlesInvoice?: boolean;
      now: Date;
    }
  /**
   * A credit note of the collection's fiscal invoice takes `amount` off what the collection asks
   * (`expectedTotal`: the total the caller saw, so a racing payment or credit refuses it). Taking it
   * to 0 settles the collection (`collection.paid`, no money). Once per credit note.
   */
  | { type: 'CreditCollection'; owner: Owner; collectionId: string; creditNoteId: string; invoiceId: string | null; amount: string; expectedTotal: string; now: Date }
  /** The credit note was voided: what it took off is asked again (only while the collection is still open). */
  | { type: 'ReverseCollectionCredit'; owner: Owner; collectionId: string; creditNoteId: string; now: Date }
  /** The invoicing context names the collection's invoice (and its number once issued). */
  | { type: 'AttachInvoice'; owner: Owner; collectionId: string; invoiceId: string; invoiceNumber: string | null; now: Date }
  | { type: 'CreateItemlessCollection'; owner: Owner; collectionId: string; input: ItemlessCollectionInput; now: Date };

/** The command of one type. */
export type CommandOf<T extends CollectionCommand['type']> = Extract<CollectionCommand, { type: T }>;
