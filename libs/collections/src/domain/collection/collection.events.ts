/** What a collection records. */
import type { CollectionFields, CollectionStatus, PartialPayment, PaymentSource } from './collection.state.js';
import type { DomainEvent } from '#shared/decider.js';
import type { MetaData } from '#shared/meta-data.js';

export type Ref = { id: string; subscription: string | null; customer: string };
export type ChargeRef = Ref & { collection: string; transaction: string; charge: string };

export type CollectionCreated = DomainEvent<'collection.created', CollectionFields & { id: string; account_id: string; is_test: boolean; created_at: string }>;
export type CollectionSent = DomainEvent<'collection.sent', Ref & { sent_at: string; checkout_url: string }>;
export type CollectionUpdated = DomainEvent<
  'collection.updated',
  Ref & { changes: Pick<CollectionFields, 'items' | 'discounts' | 'subtotal' | 'total' | 'exchange_rates' | 'discount_amounts'> }
>;
export type TransactionCreated = DomainEvent<
  'transaction.created',
  Ref & {
    collection: string;
    transaction: string;
    amount: string;
    currency: string;
    payment_method: string | null;
    gateway: string;
    payment_method_type: string;
    initiated_by: string;
    created_at: string;
    /** Internal: the gateway token and one-off details (never projected). */
    source: PaymentSource;
  }
>;
export type ChargeCreated = DomainEvent<
  'charge.created',
  ChargeRef & { try: number; amount: string; currency: string; payment_method: string | null; gateway: string; payment_method_type: string; created_at: string }
>;
export type ChargePaid = DomainEvent<'charge.paid', ChargeRef & { gateway_reference: string; paid_at: string }>;
export type ChargeFailed = DomainEvent<
  'charge.failed',
  ChargeRef & { gateway_reference: string | null; failure_code: string; failure_message: string; decline_code: string | null; retryable: boolean; failed_at: string }
>;
export type ChargePending = DomainEvent<'charge.pending', ChargeRef & { gateway_reference: string; additional_data: Record<string, unknown> }>;
export type CollectionPaid = DomainEvent<
  'collection.paid',
  Ref & {
    paid_date: string;
    transaction: string | null;
    charge: string | null;
    payment_method: string | null;
    payment_method_gateway: string | null;
    payment_method_type: string | null;
    paid_out_of_band: boolean;
    out_of_band_proof: string | null;
    /** The payment method saved from one-off `payment_information`, when there was one. */
    saved_payment_method: string | null;
    meta_data: MetaData;
    /** The receipt of the registered payment that paid it (absent otherwise). */
    paid_by?: string | null;
    /** A credit note took what it asked to 0: settled without money (absent otherwise). */
    credit_note?: string | null;
  }
>;
export type CollectionPaymentFailed = DomainEvent<
  'collection.payment_failed',
  Ref & {
    /** null: the attempt could not reach a gateway (no usable payment method); it still counts as an attempt. */
    transaction: string | null;
    charge: string | null;
    failure_code: string;
    failure_message: string;
    decline_code: string | null;
    meta_data: MetaData;
    /** Past due: the retry this failure used up, and when the next one (or the final day) is. */
    dunning_step?: number;
    next_collection_attempt_date?: string | null;
  }
>;
export type CollectionVoided = DomainEvent<'collection.voided', Ref & { voided_at_date: string }>;
export type CollectionUncollectible = DomainEvent<'collection.uncollectible', Ref & { marked_at: string; reason?: 'manual' | 'retries_exhausted' }>;
export type CollectionPastDue = DomainEvent<'collection.past_due', Ref & { due_date: string; next_collection_attempt_date: string | null; meta_data: MetaData }>;
export type CollectionReminder = DomainEvent<
  'collection.reminder',
  Ref & { dunning_step: number; next_collection_attempt_date: string | null; checkout_url: string; sent_at: string; meta_data: MetaData }
>;
export type CollectionRefunded = DomainEvent<
  'collection.refunded',
  Ref & { refund: string; amount: string; amount_refunded: string; status: CollectionStatus; charge: string | null; reason: string | null; refunded_at: string }
>;

export type CollectionPartialPaymentDefined = DomainEvent<
  'collection.partial_payment_defined',
  Ref & {
    partial_payment: PartialPayment;
    total: string;
    defined_at: string;
    /** With a balance collection: its due date and rule (what the handler creates it with). */
    balance_due_date: string | null;
    balance_collection_rule_id: string | null;
  }
>;
export type CollectionTotalUpdated = DomainEvent<'collection.total_updated', Ref & { previous_total: string; total: string; subtotal: string; invoice: string; updated_at: string }>;
export type CollectionPaymentApplied = DomainEvent<
  'collection.payment_applied',
  Ref & { receipt: string; amount: string; amount_applied: string; previous_total: string; total: string; applied_at: string; meta_data: MetaData }
>;

/** A credit note of its fiscal invoice lowered what the collection asks (`total`); `collection.credit_reversed` when that credit note is voided. */
export type CollectionCredited = DomainEvent<
  'collection.credited',
  Ref & { credit_note: string; invoice: string | null; amount: string; amount_credited: string; previous_total: string; total: string; credited_at: string; meta_data: MetaData }
>;
export type CollectionCreditReversed = DomainEvent<
  'collection.credit_reversed',
  Ref & { credit_note: string; invoice: string | null; amount: string; amount_credited: string; previous_total: string; total: string; reversed_at: string; meta_data: MetaData }
>;

export type CollectionInvoiceAttached = DomainEvent<'collection.invoice_attached', Ref & { invoice: string; invoice_number: string | null; invoices: string[] }>;

export type CollectionEvent =
  | CollectionInvoiceAttached
  | CollectionCredited
  | CollectionCreditReversed
  | CollectionCreated
  | CollectionPartialPaymentDefined
  | CollectionTotalUpdated
  | CollectionPaymentApplied
  | CollectionSent
  | CollectionUpdated
  | TransactionCreated
  | ChargeCreated
  | ChargePaid
  | ChargeFailed
  | ChargePending
  | CollectionPaid
  | CollectionPaymentFailed
  | CollectionVoided
  | CollectionUncollectible
  | CollectionRefunded
  | CollectionPastDue
  | CollectionReminder;
