import { addDays } from 'date-fns';
import { ownedBy } from '../../../shared/src/owner.js';
import { Decider, DomainEvent } from '../../../shared/src/decider.js';
import { DomainError, invalidParam, invalidState, missingParam, notFound } from '../../../shared/src/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '../../../shared/src/meta-data.js';
import { type Currency, Money, currency as currencyOf, formatAmount, isDecimalString, decimalPlaces } from '../../../shared/src/money.js';
import type { Owner } from '../../../shared/src/owner.js';
import type { BillingAddress } from '../../../customers/src/domain/customer.decider.js';
import type { ExchangeRate } from '../exchange-rates/exchange-rates.port.js';
import { type Discount, type Item, type LineInput, priceLine, totals } from './pricing.js';

export const COLLECTION_STATUSES = ['pending', 'processing', 'paid', 'past_due', 'uncollectible', 'voided', 'refunded'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
export type CollectionMethod = 'charge' | 'collect';

/** At most this many gateway-level tries (charges) per transaction: the first and one retry. */
export const MAX_CHARGES_PER_TRANSACTION = 2;

export interface InvoiceSettings {
  invoice_document_id: string | null;
  invoice_cost_center: string | null;
}

export interface InvoiceRetentions {
  reteica: string | null;
  retefte: string | null;
  reteiva?: string | null;
}

/** Every field of a collection as the spec's table lists it, plus ours (documented in decisions.md). */
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
}

/** A collection without items: the balance of a partial payment, or the receipt of a registered payment. */
export interface ItemlessCollectionInput {
  kind: 'balance' | 'receipt';
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
  billing_reason: string;
  checkout_url: string;
  test_clock?: string | null;
  retry_schedule?: RetrySchedule;
}

export interface RetrySchedule {
  retry_days: number[];
  final_days: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { retry_days: [1, 3, 5], final_days: 7 };

const DAY_MS = 86_400_000;

/** When dunning step `step` is due: due_date + retry_days[step] days, or the final day once the retries are spent. */
export function dunningDate(f: Pick<CollectionFields, 'due_date' | 'retry_schedule'>, step: number): string | null {
  if (!f.due_date) return null;
  const s = f.retry_schedule ?? DEFAULT_RETRY_SCHEDULE;
  const days = step < s.retry_days.length ? s.retry_days[step] : s.final_days;
  return new Date(Date.parse(f.due_date) + days * DAY_MS).toISOString();
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
      now: Date;
    }
  /** `POST …/update/total` (the spec's five conditions; `invoice` from the invoice's collections). */
  | { type: 'UpdateCollectionTotal'; owner: Owner; collectionId: string; total: string; invoice: InvoiceFigures; now: Date }
  /** Part of a registered payment (`receiptId`): pays the collection out of band when it covers `expectedTotal`, else lowers it. */
  | { type: 'ApplyRegisteredPayment'; owner: Owner; collectionId: string; receiptId: string; amount: string; expectedTotal: string; now: Date }
  | { type: 'CreateItemlessCollection'; owner: Owner; collectionId: string; input: ItemlessCollectionInput; now: Date };

type Ref = { id: string; subscription: string | null; customer: string };
type ChargeRef = Ref & { collection: string; transaction: string; charge: string };

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
  }
>;
export type CollectionPaymentFailed = DomainEvent<
  'collection.payment_failed',
  Ref & {
    transaction: string;
    charge: string;
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

export type CollectionEvent =
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

export const collectionStream = (collectionId: string) => `collection-${collectionId}`;

/** The 409 for an operation the collection's state does not allow; the message names the state. */
export const refusedInState = (what: string, id: string, status: string, code = 'invalid_state') =>
  new DomainError(code, `Cannot ${what} collection ${id}: its status is ${status}`, null, 409);

const inFlight = (state: CollectionState) => state.transactions.find((t) => t.status === 'in_progress') ?? null;
const awaitingCustomer = (state: CollectionState) => state.transactions.find((t) => t.status === 'pending') ?? null;

/** Lines priced, discounts applied, rates kept: what a collection's money fields are. */
export function priceCollection(lines: LineInput[], discounts: Discount[], cur: Currency) {
  lines.forEach((l, i) => {
    const from = l.price.currency.toUpperCase();
    if (from !== cur.code && (!l.rate || l.rate.from !== from || l.rate.to !== cur.code)) {
      throw new DomainError('currency_conversion_unavailable', `No exchange rate from ${from} to ${cur.code} was given for items[${i}]`, `items[${i}][price]`, 400);
    }
  });
  const items = lines.map((l) => priceLine(l, cur));
  const t = totals(items, discounts, cur);
  const rates = new Map<string, ExchangeRate>();
  for (const l of lines) if (l.rate && !rates.has(`${l.rate.from}:${l.rate.to}`)) rates.set(`${l.rate.from}:${l.rate.to}`, l.rate);
  return { items, discounts, subtotal: t.subtotal, total: t.total, discount_amounts: t.discount_amounts, exchange_rates: [...rates.values()] };
}

/** Checks discounts: a code, and exactly one of `amount` (in the collection's currency) or `percent` (0–100]. */
export function checkDiscounts(discounts: Discount[], cur: Currency, param = 'discounts'): void {
  if (!Array.isArray(discounts)) throw invalidParam(param, `${param} must be an array`);
  if (discounts.length > 20) throw invalidParam(param, `${param} can have at most 20 entries`);
  discounts.forEach((d, i) => {
    const p = `${param}[${i}]`;
    if (typeof d.code !== 'string' || d.code.trim().length === 0 || d.code.length > 100) throw invalidParam(`${p}[code]`, `${p}[code] must be 1 to 100 characters long`);
    if ((d.amount === null) === (d.percent === null)) throw invalidParam(p, `${p} needs exactly one of amount or percent`);
    if (d.amount !== null) {
      if (!isDecimalString(d.amount) || new Money(d.amount).lte(0)) throw invalidParam(`${p}[amount]`, `${p}[amount] must be a positive decimal amount`);
      if (decimalPlaces(d.amount) > cur.exponent) throw invalidParam(`${p}[amount]`, `${p}[amount] has more decimals than ${cur.code} allows (${cur.exponent})`);
    }
    if (d.percent !== null && (!isDecimalString(d.percent) || new Money(d.percent).lte(0) || new Money(d.percent).gt(100))) {
      throw invalidParam(`${p}[percent]`, `${p}[percent] must be a decimal greater than 0 and at most 100`);
    }
  });
}

export const normalizeDiscount = (d: Discount, cur: Currency): Discount => ({
  id: d.id,
  code: d.code.trim(),
  amount: d.amount === null ? null : formatAmount(d.amount, cur),
  percent: d.percent === null ? null : new Money(d.percent).toFixed(),
});

function ref(state: CollectionState, id: string): Ref {
  return { id, subscription: state.fields!.subscription, customer: state.fields!.customer };
}

/** The fields after an event: shared by `evolve` and the collections projection. */
export function applyCollectionEvent(fields: CollectionFields, event: CollectionEvent): CollectionFields {
  switch (event.type) {
    case 'collection.created': {
      const { id, account_id, is_test, created_at, ...f } = event.data;
      // Collections recorded before partial payments and registered payments existed have none of their fields.
      const cur = currencyOf(f.currency);
      const defaults: Pick<CollectionFields, 'partial_payment' | 'balance_of' | 'amount_applied' | 'paid_by' | 'applied_to'> = {
        partial_payment: null,
        balance_of: null,
        amount_applied: cur ? formatAmount('0', cur) : '0',
        paid_by: null,
        applied_to: null,
      };
      return { ...defaults, ...f };
    }
    case 'collection.updated':
      return { ...fields, ...event.data.changes };
    case 'collection.partial_payment_defined':
      return { ...fields, total: event.data.total, partial_payment: event.data.partial_payment };
    case 'collection.total_updated':
      return { ...fields, total: event.data.total, subtotal: event.data.subtotal };
    case 'collection.payment_applied':
      return { ...fields, total: event.data.total, amount_applied: event.data.amount_applied };
    case 'transaction.created':
      return {
        ...fields,
        collecting: true,
        collection_attempts: fields.collection_attempts + 1,
        latest_transaction: event.data.transaction,
        payment_method: event.data.payment_method,
        payment_method_gateway: event.data.gateway,
        payment_method_type: event.data.payment_method_type,
        additional_data: null,
      };
    case 'charge.pending':
      return { ...fields, status: 'processing', collecting: false, additional_data: event.data.additional_data };
    case 'collection.payment_failed':
      return {
        ...fields,
        status: fields.status === 'processing' ? 'pending' : fields.status,
        collecting: false,
        additional_data: null,
        dunning_step: event.data.dunning_step ?? fields.dunning_step,
        next_collection_attempt_date: event.data.next_collection_attempt_date !== undefined ? event.data.next_collection_attempt_date : fields.next_collection_attempt_date,
      };
    case 'collection.past_due':
      return { ...fields, status: 'past_due', dunning_step: 0, next_collection_attempt_date: event.data.next_collection_attempt_date };
    case 'collection.reminder':
      return { ...fields, dunning_step: event.data.dunning_step, next_collection_attempt_date: event.data.next_collection_attempt_date };
    case 'collection.paid':
      return {
        ...fields,
        status: 'paid',
        collecting: false,
        paid_date: event.data.paid_date,
        paid_out_of_band: event.data.paid_out_of_band,
        out_of_band_proof: event.data.out_of_band_proof,
        paid_by: event.data.paid_by ?? fields.paid_by ?? null,
        payment_method: event.data.saved_payment_method ?? event.data.payment_method ?? fields.payment_method,
        payment_method_gateway: event.data.payment_method_gateway ?? fields.payment_method_gateway,
        payment_method_type: event.data.payment_method_type ?? fields.payment_method_type,
        additional_data: null,
        next_collection_attempt_date: null,
      };
    case 'collection.voided':
      return { ...fields, status: 'voided', voided_at_date: event.data.voided_at_date, next_collection_attempt_date: null };
    case 'collection.uncollectible':
      return { ...fields, status: 'uncollectible', next_collection_attempt_date: null };
    case 'collection.refunded':
      return { ...fields, status: event.data.status, amount_refunded: event.data.amount_refunded };
    default:
      return fields;
  }
}

function evolveTransactions(txs: TransactionState[], event: CollectionEvent): TransactionState[] {
  const update = (id: string, f: (t: TransactionState) => TransactionState) => txs.map((t) => (t.id === id ? f(t) : t));
  const setCharge = (t: TransactionState, chargeId: string, status: ChargeStatus, retryable = false) => ({
    ...t,
    charges: t.charges.map((c) => (c.id === chargeId ? { ...c, status, retryable } : c)),
  });
  switch (event.type) {
    case 'transaction.created':
      return [...txs, { id: event.data.transaction, status: 'in_progress', started_at: event.data.created_at, source: event.data.source, amount: event.data.amount, charges: [] }];
    case 'charge.created':
      return update(event.data.transaction, (t) => ({
        ...t,
        status: 'in_progress',
        charges: [...t.charges, { id: event.data.charge, try: event.data.try, status: 'in_progress', started_at: event.data.created_at, retryable: false }],
      }));
    case 'charge.paid':
      return update(event.data.transaction, (t) => {
        const paid = setCharge(t, event.data.charge, 'succeeded');
        const reference = event.data.gateway_reference;
        return { ...paid, status: 'succeeded', charges: paid.charges.map((c) => (c.id === event.data.charge ? { ...c, gateway_reference: reference } : c)) };
      });
    case 'charge.pending':
      return update(event.data.transaction, (t) => ({ ...setCharge(t, event.data.charge, 'pending'), status: 'pending' }));
    case 'charge.failed':
      // The transaction stays open until the collection records the failure (a retry may follow).
      return update(event.data.transaction, (t) => setCharge(t, event.data.charge, 'failed', event.data.retryable));
    case 'collection.payment_failed':
      return update(event.data.transaction, (t) => ({ ...t, status: 'failed' }));
    default:
      return txs;
  }
}

/** Statuses in which the collection can still be paid. */
const PAYABLE: CollectionStatus[] = ['pending', 'past_due', 'uncollectible'];

/**
 * A collection: the object that is paid. It holds its transactions (payment attempts) and their
 * charges (gateway-level tries), so that "one successful charge per collection" is decided in one
 * stream: a payment starts only when no other attempt is in flight or awaiting the customer, and
 * that start is appended with the stream's expected revision.
 */
export const collectionDecider: Decider<CollectionCommand, CollectionState, CollectionEvent> = {
  initialState: { exists: false, owner: null, fields: null, transactions: [] },

  decide(command, state) {
    if (command.type === 'CreateCollection') return decideCreate(command, state);
    if (command.type === 'CreateItemlessCollection') return decideCreateItemless(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('collection', command.collectionId);
    const f = state.fields!;
    const id = command.collectionId;
    const now = command.now.toISOString();
    const cur = currencyOf(f.currency)!;
    switch (command.type) {
      case 'StartPayment': {
        if (f.status === 'paid' || f.status === 'refunded') throw refusedInState('pay', id, f.status, 'collection_already_paid');
        if (f.status === 'processing' || awaitingCustomer(state)) throw refusedInState('pay', id, 'processing (a payment awaits the customer)', 'payment_in_progress');
        if (!PAYABLE.includes(f.status)) throw refusedInState('pay', id, f.status);
        if (inFlight(state)) {
          throw new DomainError('payment_in_progress', `Cannot pay collection ${id}: another payment attempt is in progress`, null, 409);
        }
        if (new Money(f.total).lte(0)) throw refusedInState('pay', id, `${f.status} with a total of 0`);
        if (command.expectedAttempts !== undefined && command.expectedAttempts !== f.collection_attempts) {
          throw new DomainError('attempt_already_made', `Collection ${id} was attempted ${f.collection_attempts} times, not ${command.expectedAttempts}`, null, 409);
        }
        const base = { ...ref(state, id), collection: id, transaction: command.transactionId };
        return [
          {
            type: 'transaction.created',
            data: {
              ...base,
              amount: f.total,
              currency: f.currency,
              payment_method: command.source.payment_method,
              gateway: command.source.gateway,
              payment_method_type: command.source.type,
              initiated_by: command.initiatedBy,
              created_at: now,
              source: command.source,
            },
          },
          {
            type: 'charge.created',
            data: {
              ...base,
              charge: command.chargeId,
              try: 1,
              amount: f.total,
              currency: f.currency,
              payment_method: command.source.payment_method,
              gateway: command.source.gateway,
              payment_method_type: command.source.type,
              created_at: now,
            },
          },
        ];
      }
      case 'RetryCharge': {
        const tx = state.transactions.find((t) => t.id === command.transactionId);
        if (!tx || tx.status !== 'in_progress') throw invalidState(`Transaction ${command.transactionId} is not in progress`);
        const last = tx.charges[tx.charges.length - 1];
        if (!last || last.status !== 'failed' || !last.retryable || tx.charges.length >= MAX_CHARGES_PER_TRANSACTION) {
          throw invalidState(`Transaction ${command.transactionId} cannot be retried`);
        }
        return [
          {
            type: 'charge.created',
            data: {
              ...ref(state, id),
              collection: id,
              transaction: tx.id,
              charge: command.chargeId,
              try: last.try + 1,
              amount: tx.amount,
              currency: f.currency,
              payment_method: tx.source.payment_method,
              gateway: tx.source.gateway,
              payment_method_type: tx.source.type,
              created_at: now,
            },
          },
        ];
      }
      case 'RecordChargeOutcome':
        return decideOutcome(command, state);
      case 'AbandonTransaction':
        return decideAbandon(state, id, command.transactionId);
      case 'MarkPastDue': {
        if (f.status !== 'pending' || !f.due_date || Date.parse(f.due_date) > command.now.getTime() || inFlight(state)) return [];
        return [{ type: 'collection.past_due', data: { ...ref(state, id), due_date: f.due_date, next_collection_attempt_date: dunningDate(f, 0), meta_data: f.meta_data } }];
      }
      case 'AdvanceDunning': {
        if (f.status !== 'past_due' || !f.next_collection_attempt_date || Date.parse(f.next_collection_attempt_date) > command.now.getTime() || inFlight(state)) return [];
        const schedule = f.retry_schedule ?? DEFAULT_RETRY_SCHEDULE;
        if (f.dunning_step >= schedule.retry_days.length) {
          return [{ type: 'collection.uncollectible', data: { ...ref(state, id), marked_at: now, reason: 'retries_exhausted' } }];
        }
        if (f.collection_method === 'charge' && command.canRetry !== false) return []; // a charge retry is a payment attempt (StartPayment)
        const step = f.dunning_step + 1;
        return [
          {
            type: 'collection.reminder',
            data: { ...ref(state, id), dunning_step: step, next_collection_attempt_date: dunningDate(f, step), checkout_url: f.checkout_url, sent_at: now, meta_data: f.meta_data },
          },
        ];
      }
      case 'PayOutOfBand': {
        if (f.status === 'paid' || f.status === 'refunded') throw refusedInState('pay', id, f.status, 'collection_already_paid');
        if (inFlight(state) || f.status === 'processing') throw refusedInState('pay out of band', id, f.collecting ? 'collecting' : 'processing', 'payment_in_progress');
        if (!PAYABLE.includes(f.status)) throw refusedInState('pay', id, f.status);
        if (command.proof !== null && !/^https?:\/\/\S+$/.test(command.proof)) throw invalidParam('out_of_band_proof', 'out_of_band_proof must be an http(s) URL');
        return [paidEvent(state, id, now, { paid_out_of_band: true, out_of_band_proof: command.proof })];
      }
      case 'VoidCollection': {
        if (!PAYABLE.includes(f.status)) throw refusedInState('void', id, f.status);
        if (inFlight(state)) throw refusedInState('void', id, 'collecting', 'payment_in_progress');
        return [{ type: 'collection.voided', data: { ...ref(state, id), voided_at_date: now } }];
      }
      case 'MarkUncollectible': {
        if (f.status !== 'pending' && f.status !== 'past_due') throw refusedInState('mark uncollectible', id, f.status);
        if (inFlight(state)) throw refusedInState('mark uncollectible', id, 'collecting', 'payment_in_progress');
        return [{ type: 'collection.uncollectible', data: { ...ref(state, id), marked_at: now } }];
      }
      case 'RefundCollection': {
        if (f.status !== 'paid') throw refusedInState('refund', id, f.status);
        const remaining = new Money(f.total).minus(f.amount_refunded);
        let amount = remaining;
        if (command.amount !== null) {
          if (!isDecimalString(command.amount) || new Money(command.amount).lte(0)) throw invalidParam('amount', 'amount must be a positive decimal amount');
          if (decimalPlaces(command.amount) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
          amount = new Money(command.amount);
          if (amount.gt(remaining)) throw invalidParam('amount', `amount must be at most the refundable ${formatAmount(remaining, cur)} ${cur.code}`);
        }
        if (amount.lte(0)) throw refusedInState('refund', id, `${f.status} with nothing left to refund`);
        const refunded = new Money(f.amount_refunded).plus(amount);
        const paidCharge = state.transactions.flatMap((t) => t.charges).find((c) => c.status === 'succeeded');
        return [
          {
            type: 'collection.refunded',
            data: {
              ...ref(state, id),
              refund: command.refundId,
              amount: formatAmount(amount, cur),
              amount_refunded: formatAmount(refunded, cur),
              status: refunded.gte(f.total) ? 'refunded' : 'paid',
              charge: paidCharge?.id ?? null,
              reason: command.reason,
              refunded_at: now,
            },
          },
        ];
      }
      case 'SendCollection': {
        if (!['pending', 'past_due', 'processing'].includes(f.status)) throw refusedInState('send', id, f.status);
        return [{ type: 'collection.sent', data: { ...ref(state, id), sent_at: now, checkout_url: f.checkout_url } }];
      }
      case 'DefinePartialPayment':
        return decidePartialPayment(command, state);
      case 'UpdateCollectionTotal':
        return decideUpdateTotal(command, state);
      case 'ApplyRegisteredPayment': {
        const what = 'apply a registered payment to';
        if (f.status === 'paid' || f.status === 'refunded') throw refusedInState(what, id, f.status, 'collection_already_paid');
        if (inFlight(state) || f.status === 'processing') throw refusedInState(what, id, f.collecting ? 'collecting' : 'processing', 'payment_in_progress');
        if (!PAYABLE.includes(f.status)) throw refusedInState(what, id, f.status);
        if (!new Money(f.total).eq(command.expectedTotal)) {
          throw new DomainError('concurrent_update', `Collection ${id} changed while the payment was being applied: its total is ${f.total}, not ${formatAmount(command.expectedTotal, cur)}`, null, 409);
        }
        const amount = checkAmount(command.amount, cur, 'amount');
        if (amount.gt(f.total)) throw invalidParam('amount', `amount must be at most the total ${f.total} of collection ${id}`);
        if (amount.eq(f.total)) return [paidEvent(state, id, now, { paid_out_of_band: true, paid_by: command.receiptId })];
        return [
          {
            type: 'collection.payment_applied',
            data: {
              ...ref(state, id),
              receipt: command.receiptId,
              amount: formatAmount(amount, cur),
              amount_applied: formatAmount(amount.plus(f.amount_applied), cur),
              previous_total: f.total,
              total: formatAmount(new Money(f.total).minus(amount), cur),
              applied_at: now,
              meta_data: f.meta_data,
            },
          },
        ];
      }
      case 'UpdateCollectionItems':
      case 'UpdateCollectionDiscounts':
      case 'DeleteCollectionDiscount': {
        const what = command.type === 'UpdateCollectionItems' ? 'modify the items of' : 'modify the discounts of';
        if (f.status !== 'pending' && f.status !== 'past_due') throw refusedInState(what, id, f.status);
        if (inFlight(state)) throw refusedInState(what, id, 'collecting', 'payment_in_progress');
        const setDirectly = totalSetDirectly(f);
        if (setDirectly) throw invalidState(`Cannot ${what} collection ${id}: its total was set directly (${setDirectly}), not from items and discounts`);
        let lines: LineInput[] | null = null;
        let discounts = f.discounts;
        if (command.type === 'UpdateCollectionItems') {
          if (command.lines.length === 0) throw invalidParam('items', 'items must have at least one item');
          lines = command.lines;
        } else if (command.type === 'UpdateCollectionDiscounts') {
          checkDiscounts(command.discounts, cur);
          discounts = command.discounts.map((d) => normalizeDiscount(d, cur));
        } else {
          if (!f.discounts.some((d) => d.id === command.discountId)) throw notFound('discount', command.discountId);
          discounts = f.discounts.filter((d) => d.id !== command.discountId);
        }
        const priced = lines
          ? priceCollection(lines, discounts, cur)
          : { items: f.items ?? [], discounts, exchange_rates: f.exchange_rates, ...totals(f.items, discounts, cur) };
        return [
          {
            type: 'collection.updated',
            data: {
              ...ref(state, id),
              changes: {
                items: priced.items,
                discounts: priced.discounts,
                subtotal: priced.subtotal,
                total: priced.total,
                exchange_rates: priced.exchange_rates,
                discount_amounts: priced.discount_amounts,
              },
            },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    if (event.type === 'collection.created') {
      return {
        exists: true,
        owner: { accountId: event.data.account_id, mode: event.data.is_test ? 'test' : 'live' },
        fields: applyCollectionEvent(null as unknown as CollectionFields, event),
        transactions: [],
      };
    }
    if (!state.fields) return state;
    return { ...state, fields: applyCollectionEvent(state.fields, event), transactions: evolveTransactions(state.transactions, event) };
  },
};

function paidEvent(
  state: CollectionState,
  id: string,
  now: string,
  extra: Partial<CollectionPaid['data']>,
): CollectionPaid {
  return {
    type: 'collection.paid',
    data: {
      ...ref(state, id),
      paid_date: now,
      transaction: null,
      charge: null,
      payment_method: null,
      payment_method_gateway: null,
      payment_method_type: null,
      paid_out_of_band: false,
      out_of_band_proof: null,
      saved_payment_method: null,
      meta_data: state.fields!.meta_data,
      ...extra,
    },
  };
}

function decideCreate(command: Extract<CollectionCommand, { type: 'CreateCollection' }>, state: CollectionState): CollectionEvent[] {
  if (state.exists) throw invalidState(`Collection ${command.collectionId} already exists`);
  const input = command.input;
  const cur = currencyOf(input.currency);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${input.currency})`);
  if (input.lines.length === 0) throw missingParam('items', 'items must have at least one item');
  checkDiscounts(input.discounts, cur);
  checkMetaData(input.meta_data);
  if (input.collection_method === 'collect' && (input.days_until_due === null || input.days_until_due === undefined)) {
    throw missingParam('days_until_due', 'days_until_due is required with collection_method collect');
  }
  const discounts = input.discounts.map((d) => normalizeDiscount(d, cur));
  const priced = priceCollection(input.lines, discounts, cur);
  const now = command.now.toISOString();
  // Whole 24-hour days (date-fns' addDays works in the host's time zone and shifts across DST).
  const due_date =
    input.collection_method === 'collect'
      ? new Date(command.now.getTime() + input.days_until_due! * DAY_MS).toISOString()
      : input.due_immediately
        ? command.now.toISOString()
        : null;
  const fields = newCollectionFields(input, cur, priced, due_date);
  const created: CollectionCreated = {
    type: 'collection.created',
    data: { id: command.collectionId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields },
  };
  const events: CollectionEvent[] = [created];
  const r = { id: command.collectionId, subscription: input.subscription, customer: input.customer.id };
  if (new Money(fields.total).isZero()) {
    // Nothing to collect (a trial's first collection without one-time items): paid at once.
    const after = collectionDecider.evolve(state, created);
    events.push(paidEvent(after, command.collectionId, now, {}));
  } else if (input.collection_method === 'collect') {
    events.push({ type: 'collection.sent', data: { ...r, sent_at: now, checkout_url: input.checkout_url } });
  }
  return events;
}

/** A positive amount with at most the currency's digits, or 400 naming `param`. */
function checkAmount(value: string, cur: Currency, param: string): Money {
  if (!isDecimalString(value) || new Money(value).lte(0)) throw invalidParam(param, `${param} must be a positive decimal amount`);
  if (decimalPlaces(value) > cur.exponent) throw invalidParam(param, `${param} has more decimals than ${cur.code} allows (${cur.exponent})`);
  return new Money(value);
}

/** Why a collection's total is not its items' and discounts' any more (null when it is). */
function totalSetDirectly(f: CollectionFields): string | null {
  if (f.items === null) return 'it has no items';
  if (f.partial_payment) return 'a partial payment is defined on it';
  if (new Money(f.amount_applied ?? '0').gt(0)) return 'a registered payment was applied to it';
  return null;
}

/**
 * `POST …/partial_payment`: only `type=invoice` + `collection_method=collect` (400 otherwise, the
 * spec's rejection), `pending`/`past_due` with no attempt in flight (409 naming the state), once per
 * collection and not after a registered payment was applied to it; 0 < amount < total. The total
 * becomes `amount` (subtotal and items kept); with `balance` the event names the balance collection
 * the handler creates next (due `days_until_due` days from now).
 */
function decidePartialPayment(command: Extract<CollectionCommand, { type: 'DefinePartialPayment' }>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  const what = 'define a partial payment on';
  if (f.type !== 'invoice' || f.collection_method !== 'collect') {
    throw new DomainError(
      'partial_payment_not_allowed',
      `partial_payment is only valid for a collection with type invoice and collection_method collect; collection ${id} has type ${f.type} and collection_method ${f.collection_method}`,
      null,
      400,
    );
  }
  if (f.status !== 'pending' && f.status !== 'past_due') throw refusedInState(what, id, f.status);
  if (inFlight(state)) throw refusedInState(what, id, 'collecting', 'payment_in_progress');
  if (f.partial_payment) throw invalidState(`Cannot ${what} collection ${id}: a partial payment of ${f.partial_payment.amount} is already defined on it`);
  if (new Money(f.amount_applied ?? '0').gt(0)) throw invalidState(`Cannot ${what} collection ${id}: a registered payment of ${f.amount_applied} was already applied to it`);
  const amount = checkAmount(command.amount, cur, 'amount');
  if (amount.gte(f.total)) throw invalidParam('amount', `amount must be less than the total of collection ${id} (${f.total} ${cur.code})`);
  const balance = command.balance;
  if (balance && (balance.days_until_due === null || balance.days_until_due === undefined)) {
    throw missingParam('days_until_due', 'days_until_due is required with create_collection_with_balance');
  }
  const partial: PartialPayment = {
    original_total: f.total,
    amount: formatAmount(amount, cur),
    balance: formatAmount(new Money(f.total).minus(amount), cur),
    balance_collection: balance?.collectionId ?? null,
  };
  return [
    {
      type: 'collection.partial_payment_defined',
      data: {
        ...ref(state, id),
        partial_payment: partial,
        total: partial.amount,
        defined_at: command.now.toISOString(),
        balance_due_date: balance ? new Date(command.now.getTime() + balance.days_until_due! * DAY_MS).toISOString() : null,
        balance_collection_rule_id: balance?.collection_rule_id ?? null,
      },
    },
  ];
}

/**
 * `POST …/update/total`: the spec's five conditions, each a 400 `collection_total_not_updatable`
 * naming it — status pending/past_due/uncollectible; no items; type invoice; new total ≤ the
 * invoice's balance (total − total paid); new total + the invoice's other collections ≤ its total.
 */
function decideUpdateTotal(command: Extract<CollectionCommand, { type: 'UpdateCollectionTotal' }>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  const total = checkAmount(command.total, cur, 'total');
  const refuse = (why: string, param: string | null = null) => new DomainError('collection_total_not_updatable', `Cannot update the total of collection ${id}: ${why}`, param, 400);
  if (!PAYABLE.includes(f.status)) throw refuse(`its status is ${f.status}; it must be pending, past_due or uncollectible`);
  if (f.items !== null) throw refuse('it has items; only a collection without items (items null) can have its total set');
  if ((f.type as string) !== 'invoice') throw refuse(`its type is ${f.type}; it must be invoice`);
  const inv = command.invoice;
  const balance = new Money(inv.total).minus(inv.total_paid);
  if (total.gt(balance)) {
    throw refuse(
      `the new total ${formatAmount(total, cur)} is more than the balance of invoice ${inv.id}: ${formatAmount(balance, cur)} (invoice total ${inv.total} less ${inv.total_paid} paid)`,
      'total',
    );
  }
  const sum = total.plus(inv.other_totals);
  if (sum.gt(inv.total)) {
    throw refuse(
      `the new total ${formatAmount(total, cur)} plus the totals of the other collections of invoice ${inv.id} (${inv.other_totals}) is ${formatAmount(sum, cur)}, more than the invoice total ${inv.total}`,
      'total',
    );
  }
  if (inFlight(state)) throw refusedInState('update the total of', id, 'collecting', 'payment_in_progress');
  if (total.eq(f.total)) return [];
  const next = formatAmount(total, cur);
  return [
    {
      type: 'collection.total_updated',
      data: { ...ref(state, id), previous_total: f.total, total: next, subtotal: next, invoice: inv.id, updated_at: command.now.toISOString() },
    },
  ];
}

type NewCollectionInput = Pick<
  CreateCollectionInput,
  'customer' | 'subscription' | 'description' | 'meta_data' | 'invoice_settings' | 'invoice_retentions' | 'collection_rule_id' | 'collection_method' | 'billing_reason' | 'checkout_url' | 'test_clock' | 'retry_schedule'
>;
type CollectionMoney = Pick<CollectionFields, 'items' | 'discounts' | 'subtotal' | 'total' | 'exchange_rates' | 'discount_amounts'>;

/** A new collection's fields: pending, nothing attempted, its money as given. */
function newCollectionFields(input: NewCollectionInput, cur: Currency, money: CollectionMoney, due_date: string | null, extra: Partial<CollectionFields> = {}): CollectionFields {
  return {
    items: money.items,
    discounts: money.discounts,
    description: input.description,
    subtotal: money.subtotal,
    total: money.total,
    status: 'pending',
    currency: cur.code,
    paid_date: null,
    voided_at_date: null,
    due_date,
    next_collection_attempt_date: null,
    collection_method: input.collection_method,
    collection_rule_id: input.collection_rule_id,
    type: 'invoice',
    meta_data: input.meta_data,
    payment_settings: null,
    invoice_settings: input.invoice_settings,
    invoice_retentions: input.invoice_retentions,
    collection_attempts: 0,
    collecting: false,
    payment_method_gateway: null,
    payment_method_type: null,
    paid_out_of_band: false,
    out_of_band_proof: null,
    customer: input.customer.id,
    billing_address: input.customer.billing_address,
    subscription: input.subscription,
    invoice: null,
    invoice_number: null,
    checkout_url: input.checkout_url,
    invoices: [],
    additional_data: null,
    payment_method: null,
    latest_transaction: null,
    amount_refunded: formatAmount('0', cur),
    exchange_rates: money.exchange_rates,
    discount_amounts: money.discount_amounts,
    billing_reason: input.billing_reason,
    test_clock: input.test_clock ?? null,
    retry_schedule: input.retry_schedule ?? DEFAULT_RETRY_SCHEDULE,
    dunning_step: 0,
    partial_payment: null,
    balance_of: null,
    amount_applied: formatAmount('0', cur),
    paid_by: null,
    applied_to: null,
    ...extra,
  };
}

/**
 * A collection without items, its total set directly: the balance of a partial payment (`collect`,
 * due `days_until_due` later, created and sent) or the receipt of a registered payment (created and
 * paid out of band at once).
 */
function decideCreateItemless(command: Extract<CollectionCommand, { type: 'CreateItemlessCollection' }>, state: CollectionState): CollectionEvent[] {
  if (state.exists) throw invalidState(`Collection ${command.collectionId} already exists`);
  const input = command.input;
  const cur = currencyOf(input.currency);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${input.currency})`);
  checkMetaData(input.meta_data);
  if (!isDecimalString(input.total) || new Money(input.total).lte(0)) throw invalidParam('amount', 'amount must be a positive decimal amount');
  if (decimalPlaces(input.total) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
  const total = formatAmount(input.total, cur);
  const now = command.now.toISOString();
  const money: CollectionMoney = { items: null, discounts: [], subtotal: total, total, exchange_rates: [], discount_amounts: {} };
  const r = { id: command.collectionId, subscription: input.subscription, customer: input.customer.id };
  if (input.kind === 'balance') {
    if (!input.due_date || Number.isNaN(Date.parse(input.due_date))) throw missingParam('days_until_due', 'days_until_due is required with create_collection_with_balance');
    if (!input.balance_of) throw missingParam('balance_of', 'A balance collection names the collection it is the balance of');
    const fields = newCollectionFields({ ...input, collection_method: 'collect' }, cur, money, new Date(input.due_date).toISOString(), { balance_of: input.balance_of });
    return [
      { type: 'collection.created', data: { id: command.collectionId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields } },
      { type: 'collection.sent', data: { ...r, sent_at: now, checkout_url: input.checkout_url } },
    ];
  }
  const applied = (input.applied_to ?? []).map((a) => ({ collection: a.collection, amount: formatAmount(a.amount, cur) }));
  const appliedSum = applied.reduce((sum, a) => sum.plus(a.amount), new Money(0));
  if (appliedSum.gt(total)) throw invalidParam('amount', `The amounts applied (${formatAmount(appliedSum, cur)}) exceed the payment (${total})`);
  const fields = newCollectionFields({ ...input, collection_method: 'collect' }, cur, money, null, { applied_to: applied });
  const created: CollectionCreated = {
    type: 'collection.created',
    data: { id: command.collectionId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields },
  };
  return [created, paidEvent(collectionDecider.evolve(state, created), command.collectionId, now, { paid_out_of_band: true })];
}

function decideOutcome(command: Extract<CollectionCommand, { type: 'RecordChargeOutcome' }>, state: CollectionState): CollectionEvent[] {
  const tx = state.transactions.find((t) => t.charges.some((c) => c.id === command.chargeId));
  if (!tx) throw notFound('charge', command.chargeId);
  const charge = tx.charges.find((c) => c.id === command.chargeId)!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  const o = command.outcome;
  // Idempotent: an outcome already recorded (a retry after a crash, a racing settle) changes nothing.
  if (charge.status === 'succeeded' || charge.status === 'failed') return [];
  if (charge.status === 'pending' && o.status === 'pending') return [];
  const base = { ...ref(state, id), collection: id, transaction: tx.id, charge: charge.id };
  if (o.status === 'pending') {
    return [{ type: 'charge.pending', data: { ...base, gateway_reference: o.gateway_reference, additional_data: o.additional_data } }];
  }
  if (o.status === 'succeeded') {
    const f = state.fields!;
    if (f.status === 'paid' || f.status === 'refunded') {
      // Cannot happen while one attempt runs at a time; recorded so the money is visible, flagged for refund.
      return [{ type: 'charge.paid', data: { ...base, gateway_reference: o.gateway_reference, paid_at: now } }];
    }
    return [
      { type: 'charge.paid', data: { ...base, gateway_reference: o.gateway_reference, paid_at: now } },
      paidEvent(state, id, now, {
        transaction: tx.id,
        charge: charge.id,
        payment_method: tx.source.payment_method,
        payment_method_gateway: tx.source.gateway,
        payment_method_type: tx.source.type,
        saved_payment_method: tx.source.save_as?.payment_method_id ?? null,
      }),
    ];
  }
  const retry = o.retryable && charge.status === 'in_progress' && tx.charges.length < MAX_CHARGES_PER_TRANSACTION;
  const failed: ChargeFailed = {
    type: 'charge.failed',
    data: {
      ...base,
      gateway_reference: o.gateway_reference,
      failure_code: o.failure_code,
      failure_message: o.failure_message,
      decline_code: o.decline_code,
      retryable: retry,
      failed_at: now,
    },
  };
  if (retry) return [failed];
  return [failed, paymentFailed(state, id, tx.id, charge.id, o)];
}

function paymentFailed(
  state: CollectionState,
  id: string,
  transaction: string,
  charge: string,
  o: { failure_code: string; failure_message: string; decline_code: string | null },
): CollectionPaymentFailed {
  const f = state.fields!;
  // A failed retry of a past-due collection uses up a dunning step; the next date follows the schedule.
  const dunning = f.status === 'past_due' ? { dunning_step: f.dunning_step + 1, next_collection_attempt_date: dunningDate(f, f.dunning_step + 1) } : {};
  return {
    type: 'collection.payment_failed',
    data: {
      ...ref(state, id),
      transaction,
      charge,
      failure_code: o.failure_code,
      failure_message: o.failure_message,
      decline_code: o.decline_code,
      meta_data: f.meta_data,
      ...dunning,
    },
  };
}

/** An open collection of a customer as `register_invoices_payment` weighs it. */
export interface OpenCollection {
  id: string;
  status: CollectionStatus;
  total: string;
  due_date: string | null;
  created_at: string;
  /** A payment attempt is in flight on it. */
  collecting: boolean;
}

/** One application of a registered payment: `amount` off collection `collection`, whose total is expected to be `expected_total`. */
export interface RegisteredPaymentStep {
  collection: string;
  amount: string;
  expected_total: string;
  /** The amount covers the collection: it is paid (out of band); otherwise its total is lowered. */
  pays: boolean;
}

/** Overdue: past_due, or its due date has passed (an uncollectible one included). */
const overdue = (c: OpenCollection, now: Date) => c.status === 'past_due' || (c.due_date !== null && Date.parse(c.due_date) <= now.getTime());

/**
 * The order a registered payment is applied in (the spec's rule): overdue collections first, oldest
 * due date first; then upcoming ones, nearest due date first; collections without a due date last.
 * Ties (and those without a due date): oldest created first, then by id.
 */
export function paymentOrder(open: OpenCollection[], now: Date): OpenCollection[] {
  const due = (c: OpenCollection) => (c.due_date === null ? Number.POSITIVE_INFINITY : Date.parse(c.due_date));
  return [...open].sort(
    (a, b) =>
      Number(overdue(b, now)) - Number(overdue(a, now)) ||
      due(a) - due(b) ||
      (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * `POST /v1/customers/{id}/register_invoices_payment`: how `amount` is spread over the customer's
 * open collections (one currency), in `paymentOrder`. The first decision (`strict`) refuses an
 * amount that is not a positive amount with the currency's digits (400 `parameter_invalid`), a
 * customer with nothing open (400 `no_open_collections`), an amount larger than the open balance
 * (400 `amount_exceeds_balance`) and an open collection with an attempt in flight (409
 * `payment_in_progress`). The rest of a payment whose application was interrupted by a concurrent
 * change (not strict) goes to what is open and not being collected, as far as it reaches.
 */
export function planRegisteredPayment(customerId: string, open: OpenCollection[], amount: string, cur: Currency, now: Date, strict = true): RegisteredPaymentStep[] {
  const wanted = checkAmount(amount, cur, 'amount');
  if (strict) {
    if (open.length === 0) throw new DomainError('no_open_collections', `Customer ${customerId} has no open collections (pending, past_due or uncollectible) to apply a payment to`, null, 400);
    const busy = open.find((c) => c.collecting);
    if (busy) throw new DomainError('payment_in_progress', `Cannot register the payment: collection ${busy.id} has a payment attempt in progress`, null, 409);
    const balance = open.reduce((sum, c) => sum.plus(c.total), new Money(0));
    if (wanted.gt(balance)) {
      throw new DomainError(
        'amount_exceeds_balance',
        `amount ${formatAmount(wanted, cur)} is more than the open balance of customer ${customerId}: ${formatAmount(balance, cur)} ${cur.code} over ${open.length} collection${open.length === 1 ? '' : 's'}`,
        'amount',
        400,
      );
    }
  }
  const steps: RegisteredPaymentStep[] = [];
  let remaining = wanted;
  for (const c of paymentOrder(open.filter((o) => !o.collecting && new Money(o.total).gt(0)), now)) {
    if (remaining.lte(0)) break;
    const take = Money.min(remaining, c.total);
    steps.push({ collection: c.id, amount: formatAmount(take, cur), expected_total: c.total, pays: take.eq(c.total) });
    remaining = remaining.minus(take);
  }
  return steps;
}

/** The deadline a collection waits for, if any: going past due at its due date, or its next dunning step. */
export type CollectionDeadlineKind = 'past_due' | 'dunning';
export function collectionDeadline(f: CollectionFields): { kind: CollectionDeadlineKind; at: string } | null {
  if (f.collecting) return null;
  if (f.status === 'pending' && f.due_date) return { kind: 'past_due', at: f.due_date };
  if (f.status === 'past_due' && f.next_collection_attempt_date) return { kind: 'dunning', at: f.next_collection_attempt_date };
  return null;
}

/**
 * Closes a transaction whose last charge failed but which was left open (its retry never ran, e.g.
 * the process stopped): the attempt is recorded as failed so a new one can start.
 */
export function decideAbandon(state: CollectionState, collectionId: string, transactionId: string): CollectionEvent[] {
  const tx = state.transactions.find((t) => t.id === transactionId);
  if (!tx || tx.status !== 'in_progress') return [];
  const last = tx.charges[tx.charges.length - 1];
  if (!last || last.status !== 'failed') return [];
  return [paymentFailed(state, collectionId, tx.id, last.id, { failure_code: 'processing_error', failure_message: 'The payment attempt was not completed.', decline_code: null })];
}

/** The transaction in flight (started, no outcome yet), for the handler's stale-attempt recovery. */
export const transactionInFlight = inFlight;
