/** A collection's state: its fields, its transactions and charges, and what is derived from them. */
import type { BillingAddress } from '#customers/domain/customer.decider.js';
import type { Discount, Item } from '../pricing.js';
import type { ExchangeRate } from '../../exchange-rates/exchange-rates.port.js';
import type { MetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';

export const COLLECTION_STATUSES = ['pending', 'processing', 'paid', 'past_due', 'uncollectible', 'voided', 'refunded'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
export type CollectionMethod = 'charge' | 'collect';

/** At most this many gateway-level tries (charges) per transaction: the first and one retry. */
export const MAX_CHARGES_PER_TRANSACTION = 2;

export interface InvoiceSettings {
  invoice_document_id: string | null;
  invoice_cost_center: string | null;
  /** A checkout session's further invoicing-provider parameters (present only when a session set them). */
  invoice_payment_method_credit?: string | null;
  invoice_vendor?: string | null;
  invoice_autoretention_tax_id?: string | null;
}

/** The invoice settings only a checkout session sets (its `invoicing.invoice_settings`). */
export const CHECKOUT_INVOICE_SETTINGS = ['invoice_payment_method_credit', 'invoice_vendor', 'invoice_autoretention_tax_id'] as const;

export interface InvoiceRetentions {
  reteica: string | null;
  retefte: string | null;
  reteiva?: string | null;
}

/** Every field of a collection as the spec's table lists it, plus ours (documented in docs/decisions/0024-collections.md). */
export interface CollectionFields {
  /** null: a collection without items (a partial payment's balance, a registered payment's receipt); its total is set directly. */
  items: Item[] | null;
  discounts: Discount[];
  description: string | null;
  subtotal: string;
  total: string;
  status: CollectionStatus;
  currency: string;
  paid_date: string | null;
  voided_at_date: string | null;
  due_date: string | null;
  next_collection_attempt_date: string | null;
  collection_method: CollectionMethod;
  collection_rule_id: string | null;
  type: 'invoice';
  meta_data: MetaData;
  payment_settings: Record<string, unknown> | null;
  invoice_settings: InvoiceSettings;
  invoice_retentions: InvoiceRetentions;
  collection_attempts: number;
  collecting: boolean;
  payment_method_gateway: string | null;
  payment_method_type: string | null;
  paid_out_of_band: boolean;
  out_of_band_proof: string | null;
  customer: string;
  billing_address: BillingAddress | null;
  subscription: string | null;
  invoice: string | null;
  invoice_number: string | null;
  checkout_url: string;
  invoices: string[];
  additional_data: Record<string, unknown> | null;
  // ours
  payment_method: string | null;
  latest_transaction: string | null;
  amount_refunded: string;
  exchange_rates: ExchangeRate[];
  /** What each discount took off this collection, by discount id. */
  discount_amounts: Record<string, string>;
  /** `subscription_create`, `subscription_cycle`, `subscription_trial`, `manual`. */
  billing_reason: string;
  /** The test clock whose time this collection lives by (test mode only); null: real time. */
  test_clock: string | null;
  /** The account's dunning policy when the collection was made: retries/reminders and the final day, counted from `due_date`. */
  retry_schedule: RetrySchedule;
  /** Retries (charge) or reminders (collect) made since it went past due. */
  dunning_step: number;
  /** `POST …/partial_payment`: the total before it, the amount now to pay, the rest and the collection made for it (if any). */
  partial_payment: PartialPayment | null;
  /** A balance collection: the collection whose partial payment it holds the rest of. */
  balance_of: string | null;
  /** What `register_invoices_payment` receipts took off this collection's total (its total is what is left to pay). */
  amount_applied: string;
  /** The receipt (`register_invoices_payment`) that paid this collection, if one did. */
  paid_by: string | null;
  /** A receipt: the collections the registered payment was applied to, in the order applied. */
  applied_to: AppliedPayment[] | null;
  /**
   * A standalone collection's fiscal invoice: issued when it is created (`create`), when it is paid
   * (`after`), or never (null). `none` on a subscription's collection: not invoiced whatever the
   * subscription's rules say (a checkout session with `invoicing.enabled: false`).
   */
  invoicing?: 'create' | 'after' | 'none' | null;
  /** What credit notes of its fiscal invoice took off its total (its total is what is left to pay); collections recorded before have none. */
  amount_credited?: string;
  /** The credit notes applied to it (a voided one stays listed with `voided: true`). */
  credit_notes?: CollectionCredit[];
  /** The credit note that brought what it asks to 0 and so settled it (`collection.paid` without money), if one did. */
  settled_by_credit_note?: string | null;
}

/** A credit note of the collection's fiscal invoice, applied to the collection. */
export interface CollectionCredit {
  credit_note: string;
  amount: string;
  voided: boolean;
}

export interface PartialPayment {
  original_total: string;
  amount: string;
  balance: string;
  balance_collection: string | null;
}

export interface AppliedPayment {
  collection: string;
  amount: string;
}

export interface RetrySchedule {
  retry_days: number[];
  final_days: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { retry_days: [1, 3, 5], final_days: 7 };

export const DAY_MS = 86_400_000;

/** The days after going past due at which dunning step `step` comes: retry_days[step], or final_days once the retries are spent. */
function dunningDays(f: Pick<CollectionFields, 'retry_schedule'>, step: number): number {
  const s = f.retry_schedule ?? DEFAULT_RETRY_SCHEDULE;
  return step < s.retry_days.length ? s.retry_days[step] : s.final_days;
}

/**
 * When dunning step `step` is due, counted from when the collection went past due: its due date
 * (due_date + retry_days[step] days, or the final day once the retries are spent), or the moment it
 * was made for one made already past due (`firstDunningDate`). A later step follows the date of the
 * one before it (`next_collection_attempt_date`, set while past due) by the schedule's spacing, so no
 * step is ever dated before the collection existed.
 */
export function dunningDate(f: Pick<CollectionFields, 'due_date' | 'retry_schedule' | 'next_collection_attempt_date'>, step: number): string | null {
  if (!f.due_date) return null;
  if (step > 0 && f.next_collection_attempt_date) {
    return new Date(Date.parse(f.next_collection_attempt_date) + (dunningDays(f, step) - dunningDays(f, step - 1)) * DAY_MS).toISOString();
  }
  return firstDunningDate(f, f.due_date);
}

/** The first dunning step's date for a collection past due since `since` (its due date, or when it was made). */
export function firstDunningDate(f: Pick<CollectionFields, 'retry_schedule'>, since: string): string {
  return new Date(Date.parse(since) + dunningDays(f, 0) * DAY_MS).toISOString();
}

/** How a payment attempt pays: a stored method or one-off `payment_information` (token already made). */
export interface PaymentSource {
  payment_method: string | null;
  gateway: string;
  type: string;
  /** Stored/tokenized token (never public); null for methods that need customer action. */
  token: string | null;
  details: Record<string, string>;
  /** A tokenizable one-off method is saved as this payment method once a charge succeeds. */
  save_as: { payment_method_id: string; card: unknown; wallet: unknown; fingerprint?: string | null } | null;
  /** The hosted checkout session the customer pays through, if any (never public). */
  checkout_session?: string;
}

export type ChargeStatus = 'in_progress' | 'succeeded' | 'failed' | 'pending';
export type TransactionStatus = 'in_progress' | 'succeeded' | 'failed' | 'pending';

export interface ChargeState {
  id: string;
  try: number;
  status: ChargeStatus;
  started_at: string;
  retryable: boolean;
  /** The gateway's reference of a succeeded charge (what a refund names). */
  gateway_reference?: string | null;
}

export interface TransactionState {
  id: string;
  status: TransactionStatus;
  started_at: string;
  source: PaymentSource;
  amount: string;
  charges: ChargeState[];
}

export interface CollectionState {
  exists: boolean;
  owner: Owner | null;
  fields: CollectionFields | null;
  transactions: TransactionState[];
}

/** The deadline a collection waits for, if any: going past due at its due date, or its next dunning step. */
export type CollectionDeadlineKind = 'attempt' | 'past_due' | 'dunning';
export function collectionDeadline(f: CollectionFields): { kind: CollectionDeadlineKind; at: string } | null {
  if (f.collecting) return null;
  // A charge renewal's collection never attempted (the process died between making it and charging
  // it): attempted at its date, before it can go past due. Normally the renewal attempts it at once.
  if (f.status === 'pending' && f.collection_method === 'charge' && f.billing_reason === 'subscription_cycle' && f.collection_attempts === 0 && f.subscription && f.due_date) {
    return { kind: 'attempt', at: f.due_date };
  }
  if (f.status === 'pending' && f.due_date) return { kind: 'past_due', at: f.due_date };
  if (f.status === 'past_due' && f.next_collection_attempt_date) return { kind: 'dunning', at: f.next_collection_attempt_date };
  return null;
}

/** An attempt in flight longer than this is presumed abandoned (its process stopped) and is reconciled. */
export const STALE_ATTEMPT_MS = 60_000;

/** Statuses in which the collection can still be paid. */
export const PAYABLE: CollectionStatus[] = ['pending', 'past_due', 'uncollectible'];
/** The statuses in which a collection's notification can be sent. */
export const SENDABLE: CollectionStatus[] = ['pending', 'past_due', 'processing'];

export const collectionStream = (collectionId: string) => `collection-${collectionId}`;

/** The transaction in flight (started, no outcome yet). */
export const inFlight = (state: CollectionState) => state.transactions.find((t) => t.status === 'in_progress') ?? null;
/** The transaction awaiting the customer (a pending charge). */
export const awaitingCustomer = (state: CollectionState) => state.transactions.find((t) => t.status === 'pending') ?? null;

/** The transaction in flight (started, no outcome yet), for the handler's stale-attempt recovery. */
export const transactionInFlight = inFlight;
