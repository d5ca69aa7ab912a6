import { addDays, addHours } from 'date-fns';
import { ownedBy } from '#shared/owner.js';
import { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { type MetaData, checkMetaData, mergeMetaData } from '#shared/meta-data.js';
import { Money, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import type { Owner } from '#shared/owner.js';
import type { BillingPeriod } from '#catalog/domain/price.decider.js';
import { type Discount, type PriceSnapshot, type ProductSnapshot, checkNtpAmount } from '#collections/domain/pricing.js';
import { CHECKOUT_INVOICE_SETTINGS, checkDiscounts, normalizeDiscount, type InvoiceSettings, type InvoiceRetentions } from '#collections/domain/collection.decider.js';
import { gatewayOffers, isGatewayId } from '#payments/domain/gateways.js';
import { cycleBoundary } from './billing-period.js';
import { RETENTION_TYPES, checkRetentionRate } from '#shared/retentions.js';

export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'trialing',
  'scheduled',
  'active',
  'past_due',
  'unpaid',
  'paused',
  'pending_cancel',
  'canceled',
  'ended',
  'expired',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The first-payment window of a `charge` subscription (the spec's "about 23 hours"). */
export const FIRST_PAYMENT_WINDOW_HOURS = 23;

/** States in which nothing more can happen to a subscription. */
export const FINAL_STATES: SubscriptionStatus[] = ['canceled', 'ended', 'expired'];

export interface SubscriptionItem {
  id: string;
  price: PriceSnapshot;
  product: ProductSnapshot;
  quantity: number;
  /** `ntp` prices: the amount the customer chose. */
  amount: string | null;
}

export interface SubscriptionDiscount extends Discount {
  /** Cycles the discount applies to; null = every cycle. */
  duration_in_collections: number | null;
}

export interface Shipping {
  name: string;
  phone: string | null;
  address: { address_1: string; address_2: string | null; city: string; state: string; postcode: string | null; country: string };
}

export interface ShippingItem {
  description: string;
  amount: string;
}

export interface SubscriptionFields {
  customer: string;
  status: SubscriptionStatus;
  items: SubscriptionItem[];
  currency: string;
  billing_period: BillingPeriod;
  billing_interval: number;
  collection_method: 'charge' | 'collect';
  payment_method: string | null;
  /** Only `gateway` and `type` are kept (never card data). */
  payment_information: { gateway: string; type: string } | null;
  days_until_due: number | null;
  first_payment_invoicing: 'create' | 'after';
  renewal_invoicing: boolean;
  schedule_date: string | null;
  trial_days: number | null;
  trial_end: string | null;
  duration: number | null;
  commitment_periods: number | null;
  usage_based: boolean;
  discounts: SubscriptionDiscount[];
  switch_to_charge: boolean;
  invoice_settings: InvoiceSettings;
  invoice_retentions: InvoiceRetentions;
  meta_data: MetaData;
  latest_collection: string | null;
  next_renewal_date: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  billing_cycle_anchor: string | null;
  /** Billing cycles collected so far (a trial's first collection is not a cycle). */
  collections_count: number;
  /** `incomplete` only: when the first-payment window closes. */
  first_payment_expires_at: string | null;
  /**
   * Internal (never in the API): the checkout session that sold it. Its window is the session's
   * `expires_at`, and the session's expiry (not a deadline of its own) expires it, so a payment the
   * customer still makes on the open session is never refused by the subscription's window.
   */
  _checkout_session?: string | null;
  activated_at: string | null;
  cancel_at: string | null;
  canceled_at: string | null;
  paused_at: string | null;
  resumes_at: string | null;
  ended_at: string | null;
  shipping: Shipping | null;
  shipping_item: ShippingItem | null;
  migrated: boolean;
  /** The test clock whose time this subscription lives by (test mode only); null: real time. */
  test_clock: string | null;
  /** Cycle boundaries passed since `billing_cycle_anchor` (`next_renewal_date` is boundary `cycle`). */
  cycle: number;
  /** usage_based: the renewal whose usage was asked for (`subscription.report_usage`), and when its collection is made. */
  usage_reported_for: string | null;
  usage_collect_at: string | null;
  expired_at: string | null;
}

/** One item of a create or update request, its price already looked up. */
export interface ItemInput {
  /** Existing item to change; absent for a new item (then `newId` names it). */
  id?: string;
  newId?: string;
  price?: PriceSnapshot;
  product?: ProductSnapshot;
  quantity?: number;
  amount?: string | null;
  deleted?: boolean;
}

export interface DiscountInput {
  code: string;
  amount?: string | null;
  percent?: string | null;
  duration_in_collections?: number | null;
}

export interface SubscriptionInput {
  customer: string;
  items: ItemInput[];
  currency?: string;
  collection_method?: 'charge' | 'collect';
  payment_method?: string | null;
  payment_information?: { gateway: string; type: string } | null;
  days_until_due?: number | null;
  first_payment_invoicing?: 'create' | 'after';
  renewal_invoicing?: boolean;
  schedule_date?: string | null;
  trial_days?: number | null;
  duration?: number | null;
  commitment_periods?: number | null;
  usage_based?: boolean;
  discounts?: DiscountInput[];
  switch_to_charge?: boolean;
  invoice_settings?: Partial<InvoiceSettings>;
  invoice_retentions?: Partial<InvoiceRetentions>;
  meta_data?: MetaData;
  /** Migration only. */
  next_renewal_date?: string;
  /** The customer's test clock (set by the handler, not the caller). */
  test_clock?: string | null;
}

export interface SubscriptionChanges {
  items?: ItemInput[];
  discounts?: DiscountInput[];
  payment_method?: string | null;
  meta_data?: MetaData;
  days_until_due?: number;
  renewal_invoicing?: boolean;
  invoice_settings?: Partial<InvoiceSettings>;
  invoice_retentions?: Partial<InvoiceRetentions>;
}

/** What the handler found out about the customer's payment methods (the decider cannot look). */
export interface PaymentMethodFacts {
  /** The customer's default method, if any. */
  customerDefault: string | null;
  /** Whether the `payment_method` sent (if any) is a usable stored method of this customer. */
  requestedUsable: boolean;
}

export type SubscriptionCommand =
  | {
      type: 'CreateSubscription';
      owner: Owner;
      subscriptionId: string;
      firstCollectionId: string;
      discountIds: string[];
      input: SubscriptionInput;
      paymentMethods: PaymentMethodFacts;
      migrate: boolean;
      /** Sold by a checkout session: its first-payment window is the session's `expires_at`. */
      checkoutSession?: { id: string; expires_at: string } | null;
      now: Date;
    }
  | { type: 'RecordCollectionPaid'; owner: Owner; subscriptionId: string; collectionId: string; paymentMethod: string | null; tokenizable: boolean; now: Date }
  | {
      type: 'UpdateSubscription';
      owner: Owner;
      subscriptionId: string;
      changes: SubscriptionChanges;
      discountIds: string[];
      paymentMethods: PaymentMethodFacts;
      /** How errors name the items' fields (default: the `items` list of an update). */
      itemNaming?: ItemNaming;
      now: Date;
    }
  | { type: 'DeleteSubscriptionDiscount'; owner: Owner; subscriptionId: string; discountId: string; now: Date }
  | { type: 'CancelSubscription'; owner: Owner; subscriptionId: string; cancelAt: 'period_end' | 'now'; now: Date }
  | { type: 'PauseSubscription'; owner: Owner; subscriptionId: string; resumesAt: string | null; now: Date }
  | { type: 'ResumeSubscription'; owner: Owner; subscriptionId: string; now: Date }
  | { type: 'SetShipping'; owner: Owner; subscriptionId: string; shipping: Shipping | null; now: Date }
  | { type: 'SetShippingItem'; owner: Owner; subscriptionId: string; shippingItem: ShippingItem | null; now: Date }
  /**
   * Time reached `next_renewal_date` (`expected`, so that a second worker acting on the same deadline
   * decides nothing): start a scheduled subscription, end one whose `duration` is reached, ask a
   * usage-based one for its usage, or renew into `collectionId`.
   */
  | { type: 'RenewSubscription'; owner: Owner; subscriptionId: string; expected: string; collectionId: string; usageWaitMs: number; now: Date }
  /** The first-payment window of an `incomplete` subscription closed. */
  /** `checkoutExpired`: the checkout session that sold it expired unpaid first (its own window is shorter). */
  | { type: 'ExpireSubscription'; owner: Owner; subscriptionId: string; now: Date; checkoutExpired?: boolean }
  /** `pending_cancel` reached its `cancel_at`. */
  | { type: 'CancelAtPeriodEnd'; owner: Owner; subscriptionId: string; now: Date }
  /** A pause with `resumes_at` reached it. */
  | { type: 'ResumeOnSchedule'; owner: Owner; subscriptionId: string; now: Date }
  /** Its latest collection went past due / was given up on (retries exhausted). */
  | { type: 'MarkSubscriptionPastDue'; owner: Owner; subscriptionId: string; collectionId: string; now: Date }
  | { type: 'MarkSubscriptionUnpaid'; owner: Owner; subscriptionId: string; collectionId: string; now: Date };

type Base = { id: string; customer: string; status: SubscriptionStatus; meta_data: MetaData };
export type SubscriptionCreated = DomainEvent<
  'subscription.created' | 'subscription.scheduled',
  SubscriptionFields & { id: string; account_id: string; is_test: boolean; created_at: string; first_collection: string | null }
>;
export type SubscriptionActivated = DomainEvent<'subscription.activated', Base & { activated_at: string; collection: string }>;
export type SubscriptionUpdated = DomainEvent<
  'subscription.updated',
  Base & { changes: Partial<SubscriptionFields>; reason: string | null; /** Items the change removed. */ removed_items?: string[] }
>;
export type SubscriptionPendingCanceled = DomainEvent<'subscription.pending_canceled', Base & { cancel_at: string | null }>;
export type SubscriptionCanceled = DomainEvent<'subscription.canceled', Base & { canceled_at: string }>;
export type SubscriptionPaused = DomainEvent<'subscription.paused', Base & { paused_at: string; resumes_at: string | null }>;
export type SubscriptionResumed = DomainEvent<'subscription.resumed', Base & { resumed_at: string; next_renewal_date: string | null; cycle: number }>;
/** A cancellation scheduled for a later date (`cancel_at`) is withdrawn: the subscription goes on renewing. */
export type SubscriptionCancellationWithdrawn = DomainEvent<'subscription.cancellation_withdrawn', Base & { withdrawn_at: string; cancel_at: string }>;
type Period = { current_period_start: string; current_period_end: string; next_renewal_date: string; cycle: number };
export type SubscriptionRenewed = DomainEvent<
  'subscription.renewed',
  Base & Period & { collection: string; collections_count: number; renewed_at: string }
>;
export type SubscriptionStarted = DomainEvent<
  'subscription.started',
  Base & Period & { collection: string; collections_count: number; started_at: string; first_payment_expires_at: string | null; activated_at: string | null }
>;
export type SubscriptionReportUsage = DomainEvent<
  'subscription.report_usage',
  Base & { period_start: string | null; period_end: string; collect_at: string; items: Array<{ id: string; price: string; quantity: number }> }
>;
export type SubscriptionWillEnd = DomainEvent<'subscription.will_end', Base & { ends_at: string; remaining_collections: number }>;
export type SubscriptionEnded = DomainEvent<'subscription.ended', Base & { ended_at: string }>;
export type SubscriptionExpired = DomainEvent<'subscription.expired', Base & { expired_at: string; collection: string | null }>;
export type SubscriptionPastDue = DomainEvent<'subscription.past_due', Base & { collection: string }>;
export type SubscriptionUnpaid = DomainEvent<'subscription.unpaid', Base & { collection: string }>;

export type SubscriptionEvent =
  | SubscriptionCreated
  | SubscriptionActivated
  | SubscriptionUpdated
  | SubscriptionPendingCanceled
  | SubscriptionCanceled
  | SubscriptionPaused
  | SubscriptionResumed
  | SubscriptionCancellationWithdrawn
  | SubscriptionRenewed
  | SubscriptionStarted
  | SubscriptionReportUsage
  | SubscriptionWillEnd
  | SubscriptionEnded
  | SubscriptionExpired
  | SubscriptionPastDue
  | SubscriptionUnpaid;

export interface SubscriptionState {
  exists: boolean;
  owner: Owner | null;
  fields: SubscriptionFields | null;
  /** The trial's zero-amount first collection: paying it does not activate. */
  trialCollection: string | null;
}

export const subscriptionStream = (id: string) => `subscription-${id}`;

/** The spec's messages, word for word. */
export const MESSAGES = {
  daysUntilDueWithCharge: 'days_until_due is only allowed for collection_method charge',
  sameFrequency: 'All prices must have the same frequency (billing_period and billing_interval)',
  paymentMethodXorInformation: 'payment_method and payment_information are mutually exclusive; send only one',
  firstPaymentInvoicingCreateWithCharge: 'first_payment_invoicing create is not allowed with collection_method charge; only after is valid',
  paymentInformationWithSchedule: 'payment_information is not allowed with schedule_date',
  trialWithSchedule: 'trial_days cannot be combined with schedule_date',
} as const;

export const refusedInState = (what: string, id: string, status: string) =>
  new DomainError('invalid_state', `Cannot ${what} subscription ${id}: its status is ${status}`, null, 409);

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

function checkInt(param: string, v: number | null | undefined, min: number, max: number) {
  if (v === undefined || v === null) return;
  if (!isInt(v, min, max)) throw invalidParam(param, `${param} must be an integer from ${min} to ${max}`);
}

function parseDate(param: string, v: string): Date {
  const d = new Date(v);
  if (typeof v !== 'string' || Number.isNaN(d.getTime())) throw invalidParam(param, `${param} must be an ISO 8601 timestamp`);
  return d;
}

/** An ntp item's chosen amount written with its price currency's digits (more digits is an error); null otherwise. */
function ntpAmount(price: PriceSnapshot, amount: string | null | undefined, param: string): string | null {
  if (price.pricing_model !== 'ntp' || amount === null || amount === undefined) return null;
  const cur = currencyOf(price.currency)!;
  if (decimalPlaces(amount) > cur.exponent) throw invalidParam(param, `${param} has more decimals than ${cur.code} allows (${cur.exponent})`);
  return formatAmount(amount, cur);
}

/** How item errors name their params: `items[0][price]` in a list, `price` on the item endpoints. */
export interface ItemNaming {
  field(index: number, name: string): string;
  /** What errors about the whole list (count, frequency, no recurring price) name. */
  whole: string;
}

export const ITEMS_LIST: ItemNaming = { field: (i, name) => `items[${i}][${name}]`, whole: 'items' };

/**
 * Applies an items patch to the current items and checks the result: at least one recurring item,
 * all recurring prices on one frequency, quantities, ntp amounts. Prices may be in another currency
 * (converted when a collection is made).
 */
export function applyItems(current: SubscriptionItem[], patch: ItemInput[], naming: ItemNaming = ITEMS_LIST): SubscriptionItem[] {
  const param = naming.whole;
  if (!Array.isArray(patch)) throw invalidParam(param, `${param} must be an array`);
  let items = [...current];
  patch.forEach((p, i) => {
    const at = (name: string) => naming.field(i, name);
    if (p.id !== undefined) {
      const idx = items.findIndex((it) => it.id === p.id);
      if (idx === -1) throw notFound('subscription item', p.id, at('id'));
      if (p.deleted) {
        items = items.filter((it) => it.id !== p.id);
        return;
      }
      const next = { ...items[idx] };
      if (p.price) {
        if (!p.price.active && p.price.id !== next.price.id) throw invalidParam(at('price'), `Price ${p.price.id} is not active`);
        next.price = p.price;
        next.product = p.product!;
        next.amount = p.price.pricing_model === 'ntp' ? p.price.ntp_pricing?.suggested_amount ?? null : null;
      }
      if (p.quantity !== undefined) next.quantity = p.quantity;
      if (p.amount !== undefined) next.amount = p.amount;
      checkInt(at('quantity'), next.quantity, 1, 1_000_000);
      checkNtpAmount(next.price, next.amount, at('amount'));
      next.amount = ntpAmount(next.price, next.amount, at('amount'));
      items[idx] = next;
      return;
    }
    if (p.deleted) throw invalidParam(at('deleted'), `${at('deleted')} needs ${at('id')}`);
    if (!p.price || !p.newId) throw missingParam(at('price'));
    const quantity = p.quantity ?? 1;
    checkInt(at('quantity'), quantity, 1, 1_000_000);
    checkNtpAmount(p.price, p.amount, at('amount'));
    if (!p.price.active) throw invalidParam(at('price'), `Price ${p.price.id} is not active`);
    items.push({ id: p.newId, price: p.price, product: p.product!, quantity, amount: ntpAmount(p.price, p.amount ?? p.price.ntp_pricing?.suggested_amount ?? null, at('amount')) });
  });
  if (items.length > 20) throw invalidParam(param, `${param} can have at most 20 items`);
  const recurring = items.filter((it) => it.price.type === 'recurring');
  if (recurring.length === 0) throw invalidParam(param, 'A subscription needs at least one recurring price');
  const first = recurring[0].price;
  if (recurring.some((it) => it.price.billing_period !== first.billing_period || it.price.billing_interval !== first.billing_interval)) {
    throw invalidParam(param, MESSAGES.sameFrequency);
  }
  return items;
}

function buildDiscounts(input: DiscountInput[] | undefined, ids: string[], currency: string): SubscriptionDiscount[] {
  if (input === undefined) return [];
  const cur = currencyOf(currency)!;
  if (!Array.isArray(input)) throw invalidParam('discounts', 'discounts must be an array');
  const base: Discount[] = input.map((d, i) => ({ id: ids[i], code: d.code, amount: d.amount ?? null, percent: d.percent ?? null }));
  checkDiscounts(base, cur);
  return input.map((d, i) => {
    checkInt(`discounts[${i}][duration_in_collections]`, d.duration_in_collections, 1, 1000);
    return { ...normalizeDiscount(base[i], cur), duration_in_collections: d.duration_in_collections ?? null };
  });
}

const settings = (s: Partial<InvoiceSettings> | undefined, prev?: InvoiceSettings): InvoiceSettings => {
  const out: InvoiceSettings = {
    invoice_document_id: s?.invoice_document_id ?? prev?.invoice_document_id ?? null,
    invoice_cost_center: s?.invoice_cost_center ?? prev?.invoice_cost_center ?? null,
  };
  // A checkout session's further provider parameters: kept only when one set them.
  for (const k of CHECKOUT_INVOICE_SETTINGS) {
    const v = s?.[k] ?? prev?.[k] ?? null;
    if (v !== null) out[k] = v;
  }
  return out;
};
const retentions = (r: Partial<InvoiceRetentions> | undefined, prev?: InvoiceRetentions): InvoiceRetentions => ({
  reteiva: r?.reteiva ?? prev?.reteiva ?? null,
  reteica: r?.reteica ?? prev?.reteica ?? null,
  retefte: r?.retefte ?? prev?.retefte ?? null,
});

/** reteica per thousand (‰), reteiva and retefte percent (libs/shared/src/retentions.ts). */
function checkRetentions(r: Partial<InvoiceRetentions> | undefined) {
  for (const k of RETENTION_TYPES) checkRetentionRate(`invoice_retentions[${k}]`, k, r?.[k]);
}

/** The payment method a subscription will charge, per the spec's rule; null for `collect`. */
function choosePaymentMethod(input: SubscriptionInput | SubscriptionChanges, facts: PaymentMethodFacts, method: 'charge' | 'collect'): string | null {
  if (method === 'collect') return null;
  if (input.payment_method) {
    if (!facts.requestedUsable) throw invalidParam('payment_method', `No such payment method for this customer: '${input.payment_method}'`);
    return input.payment_method;
  }
  return facts.customerDefault;
}

function decideCreate(c: Extract<SubscriptionCommand, { type: 'CreateSubscription' }>, state: SubscriptionState): SubscriptionEvent[] {
  if (state.exists) throw new DomainError('resource_already_exists', `Subscription ${c.subscriptionId} already exists`, null, 409);
  const i = c.input;
  const method = i.collection_method ?? 'charge';
  if (method !== 'charge' && method !== 'collect') throw invalidParam('collection_method', 'collection_method must be charge or collect');
  // The spec's rejections, in the order a reader of the table meets them.
  if (method === 'charge' && i.days_until_due !== undefined && i.days_until_due !== null) throw invalidParam('days_until_due', MESSAGES.daysUntilDueWithCharge);
  if (method === 'collect' && (i.days_until_due === undefined || i.days_until_due === null)) {
    throw missingParam('days_until_due', 'days_until_due is required with collection_method collect');
  }
  checkInt('days_until_due', i.days_until_due, 0, 365);
  if (i.payment_method && i.payment_information) throw invalidParam('payment_information', MESSAGES.paymentMethodXorInformation);
  if (method === 'collect' && i.payment_method) throw invalidParam('payment_method', 'payment_method is only allowed with collection_method charge');
  if (method === 'collect' && i.payment_information) throw invalidParam('payment_information', 'payment_information is only allowed with collection_method charge');
  if (i.first_payment_invoicing !== undefined && !['create', 'after'].includes(i.first_payment_invoicing)) {
    throw invalidParam('first_payment_invoicing', 'first_payment_invoicing must be create or after');
  }
  if (method === 'charge' && i.first_payment_invoicing === 'create') throw invalidParam('first_payment_invoicing', MESSAGES.firstPaymentInvoicingCreateWithCharge);
  if (i.switch_to_charge && method !== 'collect') throw invalidParam('switch_to_charge', 'switch_to_charge is only allowed with collection_method collect');
  let schedule: Date | null = null;
  if (i.schedule_date !== undefined && i.schedule_date !== null) {
    if (c.migrate) throw invalidParam('schedule_date', 'schedule_date is not allowed when migrating; send next_renewal_date');
    if (i.payment_information) throw invalidParam('payment_information', MESSAGES.paymentInformationWithSchedule);
    if (i.trial_days !== undefined && i.trial_days !== null) throw invalidParam('trial_days', MESSAGES.trialWithSchedule);
    schedule = parseDate('schedule_date', i.schedule_date);
    if (schedule.getTime() <= c.now.getTime()) throw invalidParam('schedule_date', 'schedule_date must be in the future');
  }
  checkInt('trial_days', i.trial_days, 1, 730);
  checkInt('duration', i.duration, 1, 1000);
  checkInt('commitment_periods', i.commitment_periods, 1, 1000);
  if (i.duration && i.commitment_periods && i.commitment_periods > i.duration) {
    throw invalidParam('commitment_periods', 'commitment_periods cannot exceed duration');
  }
  if (i.payment_information) {
    const pi = i.payment_information;
    if (!isGatewayId(pi.gateway)) throw invalidParam('payment_information[gateway]', `Unknown gateway ${pi.gateway}`);
    if (!gatewayOffers(pi.gateway, pi.type)) throw invalidParam('payment_information[type]', `${pi.gateway} does not offer ${pi.type}`);
  }
  if (i.meta_data !== undefined) checkMetaData(i.meta_data);
  checkRetentions(i.invoice_retentions);
  const items = applyItems([], i.items ?? []);
  const recurring = items.find((it) => it.price.type === 'recurring')!.price;
  const currency = (i.currency ?? recurring.currency).toUpperCase();
  if (!currencyOf(currency)) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${i.currency})`);
  if (items.some((it) => it.price.pricing_model === 'ntp') && i.trial_days) {
    throw invalidParam('trial_days', 'A subscription with an ntp price cannot have a free trial');
  }
  const discounts = buildDiscounts(i.discounts, c.discountIds, currency);

  const paymentMethod = i.payment_information ? null : choosePaymentMethod(i, c.paymentMethods, method);
  if (method === 'charge' && !i.payment_information && paymentMethod === null) {
    throw new DomainError(
      'payment_method_required',
      `Customer ${i.customer} has no default payment method; send payment_method or payment_information`,
      'payment_method',
      400,
    );
  }

  const now = c.now;
  const period = recurring.billing_period!;
  const interval = recurring.billing_interval!;
  let status: SubscriptionStatus;
  let anchor: Date | null;
  let nextRenewal: Date | null;
  let trialEnd: string | null = null;
  let firstCollection: string | null = c.firstCollectionId;
  if (c.migrate) {
    if (!i.next_renewal_date) throw missingParam('next_renewal_date', 'next_renewal_date is required when migrating a subscription');
    const next = parseDate('next_renewal_date', i.next_renewal_date);
    if (next.getTime() <= now.getTime()) throw invalidParam('next_renewal_date', 'next_renewal_date must be in the future');
    if (i.trial_days) throw invalidParam('trial_days', 'trial_days is not allowed when migrating; send next_renewal_date');
    status = 'active';
    anchor = next;
    nextRenewal = next;
    firstCollection = null;
  } else if (schedule) {
    status = 'scheduled';
    anchor = schedule;
    nextRenewal = schedule;
    firstCollection = null;
  } else if (i.trial_days) {
    status = 'trialing';
    // Whole 24-hour days (date-fns' addDays works in the host's time zone and shifts across DST).
    const end = new Date(now.getTime() + i.trial_days * 86_400_000);
    trialEnd = end.toISOString();
    anchor = end;
    nextRenewal = end;
  } else {
    status = method === 'charge' ? 'incomplete' : 'active';
    anchor = now;
    nextRenewal = cycleBoundary(now, period, interval, 1);
  }
  if (!c.migrate && i.next_renewal_date !== undefined) throw invalidParam('next_renewal_date', 'next_renewal_date is only allowed when migrating');

  const fields: SubscriptionFields = {
    customer: i.customer,
    status,
    items,
    currency,
    billing_period: period,
    billing_interval: interval,
    collection_method: method,
    payment_method: paymentMethod,
    payment_information: i.payment_information ? { gateway: i.payment_information.gateway, type: i.payment_information.type } : null,
    days_until_due: method === 'collect' ? i.days_until_due! : null,
    first_payment_invoicing: i.first_payment_invoicing ?? 'after',
    renewal_invoicing: i.renewal_invoicing ?? true,
    schedule_date: schedule ? schedule.toISOString() : null,
    trial_days: i.trial_days ?? null,
    trial_end: trialEnd,
    duration: i.duration ?? null,
    commitment_periods: i.commitment_periods ?? null,
    usage_based: i.usage_based ?? false,
    discounts,
    switch_to_charge: i.switch_to_charge ?? false,
    invoice_settings: settings(i.invoice_settings),
    invoice_retentions: retentions(i.invoice_retentions),
    meta_data: i.meta_data ?? {},
    latest_collection: firstCollection,
    next_renewal_date: nextRenewal ? nextRenewal.toISOString() : null,
    current_period_start: status === 'scheduled' ? null : status === 'trialing' ? now.toISOString() : c.migrate ? null : now.toISOString(),
    current_period_end: status === 'scheduled' ? null : nextRenewal?.toISOString() ?? null,
    billing_cycle_anchor: anchor ? anchor.toISOString() : null,
    collections_count: firstCollection && status !== 'trialing' ? 1 : 0,
    first_payment_expires_at: status === 'incomplete' ? (c.checkoutSession?.expires_at ?? addHours(now, FIRST_PAYMENT_WINDOW_HOURS).toISOString()) : null,
    ...(c.checkoutSession ? { _checkout_session: c.checkoutSession.id } : {}),
    activated_at: status === 'active' ? now.toISOString() : null,
    cancel_at: null,
    canceled_at: null,
    paused_at: null,
    resumes_at: null,
    ended_at: null,
    shipping: null,
    shipping_item: null,
    migrated: c.migrate,
    test_clock: i.test_clock ?? null,
    cycle: status === 'scheduled' || status === 'trialing' || c.migrate ? 0 : 1,
    usage_reported_for: null,
    usage_collect_at: null,
    expired_at: null,
  };
  return [
    {
      type: status === 'scheduled' ? 'subscription.scheduled' : 'subscription.created',
      data: {
        id: c.subscriptionId,
        account_id: c.owner.accountId,
        is_test: c.owner.mode === 'test',
        created_at: now.toISOString(),
        first_collection: firstCollection,
        ...fields,
      },
    },
  ];
}

/** Discounts that still apply to the next collection (cycle `collections_count + 1`). */
export function discountsForNextCollection(f: SubscriptionFields, forTrial = false): SubscriptionDiscount[] {
  if (forTrial) return f.discounts;
  return f.discounts.filter((d) => d.duration_in_collections === null || f.collections_count < d.duration_in_collections);
}

/** A renewal's or a start's new cycle: its collection and period. */
function newPeriod(d: Period & { collection: string; collections_count: number }): Partial<SubscriptionFields> {
  return {
    latest_collection: d.collection,
    current_period_start: d.current_period_start,
    current_period_end: d.current_period_end,
    next_renewal_date: d.next_renewal_date,
    cycle: d.cycle,
    collections_count: d.collections_count,
  };
}

/** The fields after an event: shared by `evolve` and the subscriptions projection. */
export function applySubscriptionEvent(fields: SubscriptionFields, event: SubscriptionEvent): SubscriptionFields {
  switch (event.type) {
    case 'subscription.created':
    case 'subscription.scheduled': {
      const { id, account_id, is_test, created_at, first_collection, ...f } = event.data;
      return f;
    }
    case 'subscription.activated':
      return { ...fields, status: 'active', activated_at: event.data.activated_at, first_payment_expires_at: null };
    case 'subscription.updated':
      return { ...fields, ...event.data.changes };
    case 'subscription.pending_canceled':
      return { ...fields, status: 'pending_cancel', cancel_at: event.data.cancel_at };
    case 'subscription.canceled':
      return { ...fields, status: 'canceled', canceled_at: event.data.canceled_at, next_renewal_date: null, first_payment_expires_at: null };
    case 'subscription.paused':
      return { ...fields, status: 'paused', paused_at: event.data.paused_at, resumes_at: event.data.resumes_at };
    case 'subscription.resumed':
      return { ...fields, status: 'active', paused_at: null, resumes_at: null, next_renewal_date: event.data.next_renewal_date, cycle: event.data.cycle };
    case 'subscription.cancellation_withdrawn':
      return { ...fields, status: event.data.status, cancel_at: null };
    case 'subscription.renewed':
      return { ...fields, ...newPeriod(event.data), usage_reported_for: null, usage_collect_at: null };
    case 'subscription.started': {
      const d = event.data;
      return { ...fields, ...newPeriod(d), status: d.status, first_payment_expires_at: d.first_payment_expires_at, activated_at: d.activated_at };
    }
    case 'subscription.report_usage':
      return { ...fields, usage_reported_for: event.data.period_end, usage_collect_at: event.data.collect_at };
    case 'subscription.will_end':
      return fields;
    case 'subscription.ended':
      return { ...fields, status: 'ended', ended_at: event.data.ended_at, next_renewal_date: null };
    case 'subscription.expired':
      return { ...fields, status: 'expired', expired_at: event.data.expired_at, next_renewal_date: null, first_payment_expires_at: null };
    case 'subscription.past_due':
      return { ...fields, status: 'past_due' };
    case 'subscription.unpaid':
      return { ...fields, status: 'unpaid' };
    default:
      return fields;
  }
}

/** When the committed periods end (null without a commitment): boundary `commitment_periods` from the anchor. */
function commitmentEndOf(f: SubscriptionFields): Date | null {
  if (!f.commitment_periods || !f.billing_cycle_anchor) return null;
  return cycleBoundary(new Date(f.billing_cycle_anchor), f.billing_period, f.billing_interval, f.commitment_periods);
}

/** Back to active; a renewal date that passed during the pause moves to the next boundary after now (no back-billing). */
function resumed(state: SubscriptionState, id: string, now: Date): SubscriptionResumed {
  const f = state.fields!;
  let cycle = f.cycle;
  let next = f.next_renewal_date;
  if (next && f.billing_cycle_anchor && Date.parse(next) <= now.getTime()) {
    const anchor = new Date(f.billing_cycle_anchor);
    while (cycleBoundary(anchor, f.billing_period, f.billing_interval, cycle).getTime() <= now.getTime()) cycle++;
    next = cycleBoundary(anchor, f.billing_period, f.billing_interval, cycle).toISOString();
  }
  return { type: 'subscription.resumed', data: { ...base(state, id, 'active'), resumed_at: now.toISOString(), next_renewal_date: next, cycle } };
}

/** What time does at `next_renewal_date` (see the RenewSubscription command). */
function decideRenewal(c: Extract<SubscriptionCommand, { type: 'RenewSubscription' }>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = c.subscriptionId;
  if (f.next_renewal_date !== c.expected || !f.billing_cycle_anchor) return [];
  const due = Date.parse(c.expected);
  if (due > c.now.getTime()) return [];
  const anchor = new Date(f.billing_cycle_anchor);
  const boundary = (n: number) => cycleBoundary(anchor, f.billing_period, f.billing_interval, n).toISOString();
  if (f.status === 'scheduled') {
    const charge = f.collection_method === 'charge';
    return [
      {
        type: 'subscription.started',
        data: {
          ...base(state, id, charge ? 'incomplete' : 'active'),
          collection: c.collectionId,
          collections_count: 1,
          current_period_start: c.expected,
          current_period_end: boundary(1),
          next_renewal_date: boundary(1),
          cycle: 1,
          started_at: c.now.toISOString(),
          first_payment_expires_at: charge ? addHours(c.now, FIRST_PAYMENT_WINDOW_HOURS).toISOString() : null,
          activated_at: charge ? null : c.now.toISOString(),
        },
      },
    ];
  }
  // A cancellation scheduled at the end of a commitment still bills the committed periods before it.
  const committedRenewal = f.status === 'pending_cancel' && f.cancel_at !== null && due < Date.parse(f.cancel_at);
  if (!['active', 'past_due', 'trialing'].includes(f.status) && !committedRenewal) return [];
  if (f.duration !== null && f.collections_count >= f.duration) {
    return [{ type: 'subscription.ended', data: { ...base(state, id, 'ended'), ended_at: c.expected } }];
  }
  if (f.usage_based && f.usage_reported_for !== c.expected) {
    return [
      {
        type: 'subscription.report_usage',
        data: {
          ...base(state, id, f.status),
          period_start: f.current_period_start,
          period_end: c.expected,
          collect_at: new Date(due + c.usageWaitMs).toISOString(),
          items: f.items.map((it) => ({ id: it.id, price: it.price.id, quantity: it.quantity })),
        },
      },
    ];
  }
  if (f.usage_based && f.usage_collect_at && Date.parse(f.usage_collect_at) > c.now.getTime()) return [];
  const count = f.collections_count + 1;
  const events: SubscriptionEvent[] = [
    {
      type: 'subscription.renewed',
      data: {
        ...base(state, id, f.status),
        collection: c.collectionId,
        collections_count: count,
        current_period_start: c.expected,
        current_period_end: boundary(f.cycle + 1),
        next_renewal_date: boundary(f.cycle + 1),
        cycle: f.cycle + 1,
        renewed_at: c.now.toISOString(),
      },
    },
  ];
  if (f.duration !== null && count === f.duration) {
    events.push({ type: 'subscription.will_end', data: { ...base(state, id, f.status), ends_at: boundary(f.cycle + 1), remaining_collections: 0 } });
  }
  return events;
}

/** The deadline a subscription waits for, if any: what time will do to it next, and when. */
export type SubscriptionDeadlineKind = 'renew' | 'expire' | 'cancel' | 'resume';
export function subscriptionDeadline(f: SubscriptionFields): { kind: SubscriptionDeadlineKind; at: string } | null {
  switch (f.status) {
    case 'incomplete':
      // Sold by a checkout session: the session's expiry expires it (checkout-follow-ups), not a deadline of its own.
      if (f._checkout_session) return null;
      return f.first_payment_expires_at ? { kind: 'expire', at: f.first_payment_expires_at } : null;
    case 'scheduled':
    case 'trialing':
    case 'active':
    case 'past_due':
      // Overdue while a cancellation was scheduled: the cancellation still comes at its date.
      if (f.status === 'past_due' && f.cancel_at && (!f.next_renewal_date || f.cancel_at <= f.next_renewal_date)) return { kind: 'cancel', at: f.cancel_at };
      if (!f.next_renewal_date) return null;
      if (f.usage_based && f.usage_reported_for === f.next_renewal_date && f.usage_collect_at) return { kind: 'renew', at: f.usage_collect_at };
      return { kind: 'renew', at: f.next_renewal_date };
    case 'pending_cancel':
      // Cancelled at the end of a commitment: the committed periods before `cancel_at` still renew.
      if (f.cancel_at && f.next_renewal_date && f.next_renewal_date < f.cancel_at) return { kind: 'renew', at: f.next_renewal_date };
      return f.cancel_at ? { kind: 'cancel', at: f.cancel_at } : null;
    case 'paused':
      return f.resumes_at ? { kind: 'resume', at: f.resumes_at } : null;
    case 'unpaid':
      return f.cancel_at ? { kind: 'cancel', at: f.cancel_at } : null;
    default:
      return null;
  }
}

function base(state: SubscriptionState, id: string, status: SubscriptionStatus, meta?: MetaData): Base {
  return { id, customer: state.fields!.customer, status, meta_data: meta ?? state.fields!.meta_data };
}

/**
 * A subscription: the agreement. It never charges itself; its collections are paid. Status follows
 * the spec's transition table; time-driven transitions (renewal, due dates, expiry) come with the
 * scheduler.
 */
export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionState, SubscriptionEvent> = {
  initialState: { exists: false, owner: null, fields: null, trialCollection: null },

  decide(command, state) {
    if (command.type === 'CreateSubscription') return decideCreate(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('subscription', command.subscriptionId);
    const f = state.fields!;
    const id = command.subscriptionId;
    const now = command.now.toISOString();
    const refuseFinal = (what: string) => {
      if (FINAL_STATES.includes(f.status)) throw refusedInState(what, id, f.status);
    };
    switch (command.type) {
      case 'RecordCollectionPaid': {
        const events: SubscriptionEvent[] = [];
        const isTrialCollection = command.collectionId === state.trialCollection;
        if (
          command.collectionId === f.latest_collection &&
          !isTrialCollection &&
          (f.status === 'incomplete' || f.status === 'trialing')
        ) {
          events.push({ type: 'subscription.activated', data: { ...base(state, id, 'active'), activated_at: now, collection: command.collectionId } });
        }
        if (command.collectionId === f.latest_collection && (f.status === 'past_due' || f.status === 'unpaid')) {
          // Paying the overdue collection brings the subscription back in good standing; a trial whose
          // first real collection went past due was never active: this payment activates it.
          // A cancellation scheduled before it went past due still stands: back to pending_cancel.
          const standing: SubscriptionStatus = f.cancel_at ? 'pending_cancel' : 'active';
          if (f.activated_at === null) events.push({ type: 'subscription.activated', data: { ...base(state, id, 'active'), activated_at: now, collection: command.collectionId } });
          if (f.activated_at !== null || standing !== 'active') {
            events.push({ type: 'subscription.updated', data: { ...base(state, id, standing), changes: { status: standing }, reason: 'collection_paid' } });
          }
        }
        if (
          f.collection_method === 'charge' &&
          f.payment_method === null &&
          command.tokenizable &&
          command.paymentMethod &&
          !FINAL_STATES.includes(f.status)
        ) {
          // Paid with one-off card or wallet data: the saved method pays the renewals.
          events.push({
            type: 'subscription.updated',
            data: {
              ...base(state, id, events.length ? 'active' : f.status),
              changes: { payment_method: command.paymentMethod, payment_information: null },
              reason: 'payment_method_saved',
            },
          });
        }
        if (f.switch_to_charge && f.collection_method === 'collect' && command.tokenizable && command.paymentMethod && !FINAL_STATES.includes(f.status)) {
          events.push({
            type: 'subscription.updated',
            data: {
              ...base(state, id, events.length ? 'active' : f.status),
              changes: { collection_method: 'charge', payment_method: command.paymentMethod, days_until_due: null },
              reason: 'switch_to_charge',
            },
          });
        }
        return events;
      }
      case 'UpdateSubscription': {
        refuseFinal('update');
        const c = command.changes;
        const changes: Partial<SubscriptionFields> = {};
        const naming = command.itemNaming ?? ITEMS_LIST;
        if (c.items !== undefined) changes.items = applyItems(f.items, c.items, naming);
        if (changes.items) {
          const recurring = changes.items.find((it) => it.price.type === 'recurring')!.price;
          if (recurring.billing_period !== f.billing_period || recurring.billing_interval !== f.billing_interval) {
            throw invalidParam(naming.whole, MESSAGES.sameFrequency);
          }
        }
        if (c.discounts !== undefined) changes.discounts = buildDiscounts(c.discounts, command.discountIds, f.currency);
        if (c.payment_method !== undefined) {
          if (f.collection_method !== 'charge') throw invalidParam('payment_method', 'payment_method is only allowed with collection_method charge');
          if (c.payment_method === null) throw invalidParam('payment_method', 'payment_method cannot be removed from a charge subscription');
          changes.payment_method = choosePaymentMethod(c, command.paymentMethods, 'charge');
          changes.payment_information = null;
        }
        if (c.days_until_due !== undefined) {
          if (f.collection_method !== 'collect') throw invalidParam('days_until_due', MESSAGES.daysUntilDueWithCharge);
          checkInt('days_until_due', c.days_until_due, 0, 365);
          changes.days_until_due = c.days_until_due;
        }
        if (c.renewal_invoicing !== undefined) changes.renewal_invoicing = c.renewal_invoicing;
        if (c.invoice_settings !== undefined) changes.invoice_settings = settings(c.invoice_settings, f.invoice_settings);
        if (c.invoice_retentions !== undefined) {
          checkRetentions(c.invoice_retentions);
          changes.invoice_retentions = retentions(c.invoice_retentions, f.invoice_retentions);
        }
        if (c.meta_data !== undefined) changes.meta_data = mergeMetaData(f.meta_data, checkMetaData(c.meta_data)!);
        if (Object.keys(changes).length === 0) return [];
        const removed = changes.items ? f.items.filter((it) => !changes.items!.some((n) => n.id === it.id)).map((it) => it.id) : [];
        return [{ type: 'subscription.updated', data: { ...base(state, id, f.status, changes.meta_data), changes, reason: 'api', removed_items: removed } }];
      }
      case 'DeleteSubscriptionDiscount': {
        refuseFinal('delete a discount of');
        if (!f.discounts.some((d) => d.id === command.discountId)) throw notFound('subscription discount', command.discountId);
        return [{ type: 'subscription.updated', data: { ...base(state, id, f.status), changes: { discounts: f.discounts.filter((d) => d.id !== command.discountId) }, reason: 'api' } }];
      }
      case 'CancelSubscription': {
        // Commitment: until `commitment_periods` cycles are billed the subscription cannot stop early:
        // `period_end` becomes a cancellation at the end of the committed period, `now` is refused.
        const commitmentEnd = commitmentEndOf(f);
        const committed = commitmentEnd !== null && commitmentEnd.getTime() > command.now.getTime();
        if (command.cancelAt === 'period_end') {
          if (f.status === 'pending_cancel') return [];
          if (f.status !== 'active') throw refusedInState('cancel at period end', id, f.status);
          const periodEnd = f.current_period_end ?? f.next_renewal_date;
          const cancelAt = committed && periodEnd && commitmentEnd!.getTime() > Date.parse(periodEnd) ? commitmentEnd!.toISOString() : periodEnd;
          return [{ type: 'subscription.pending_canceled', data: { ...base(state, id, 'pending_cancel'), cancel_at: cancelAt } }];
        }
        if (command.cancelAt !== 'now') throw invalidParam('cancel_at', 'cancel_at must be period_end or now');
        refuseFinal('cancel');
        if (committed && !['incomplete', 'scheduled', 'past_due', 'unpaid'].includes(f.status)) {
          throw new DomainError(
            'commitment_not_met',
            `Cannot cancel subscription ${id} now: it is committed to ${f.commitment_periods} periods, until ${commitmentEnd!.toISOString()}; cancel with cancel_at period_end to end it then`,
            'cancel_at',
            409,
          );
        }
        return [{ type: 'subscription.canceled', data: { ...base(state, id, 'canceled'), canceled_at: now } }];
      }
      case 'PauseSubscription': {
        if (f.status !== 'active') throw refusedInState('pause', id, f.status);
        let resumesAt: string | null = null;
        if (command.resumesAt !== null) {
          const d = parseDate('resumes_at', command.resumesAt);
          if (d.getTime() <= command.now.getTime()) throw invalidParam('resumes_at', 'resumes_at must be in the future');
          resumesAt = d.toISOString();
        }
        return [{ type: 'subscription.paused', data: { ...base(state, id, 'paused'), paused_at: now, resumes_at: resumesAt } }];
      }
      case 'ResumeSubscription': {
        // A cancellation scheduled for later (pending_cancel, or one that stands while past due or
        // unpaid) is withdrawn: the status it had before the cancellation was asked for goes on.
        if (f.cancel_at && ['pending_cancel', 'past_due', 'unpaid'].includes(f.status)) {
          const status: SubscriptionStatus = f.status === 'pending_cancel' ? 'active' : f.status;
          return [{ type: 'subscription.cancellation_withdrawn', data: { ...base(state, id, status), withdrawn_at: now, cancel_at: f.cancel_at } }];
        }
        if (f.status !== 'paused') throw refusedInState('resume', id, f.status);
        return [resumed(state, id, command.now)];
      }
      case 'ResumeOnSchedule': {
        if (f.status !== 'paused' || !f.resumes_at || Date.parse(f.resumes_at) > command.now.getTime()) return [];
        return [resumed(state, id, command.now)];
      }
      case 'RenewSubscription':
        return decideRenewal(command, state);
      case 'ExpireSubscription': {
        if (f.status !== 'incomplete' || !f.first_payment_expires_at) return [];
        if (!command.checkoutExpired && Date.parse(f.first_payment_expires_at) > command.now.getTime()) return [];
        return [{ type: 'subscription.expired', data: { ...base(state, id, 'expired'), expired_at: now, collection: f.latest_collection } }];
      }
      case 'CancelAtPeriodEnd': {
        // A scheduled cancellation holds whether the subscription is in good standing or overdue.
        if (!['pending_cancel', 'past_due', 'unpaid'].includes(f.status) || !f.cancel_at || Date.parse(f.cancel_at) > command.now.getTime()) return [];
        return [{ type: 'subscription.canceled', data: { ...base(state, id, 'canceled'), canceled_at: f.cancel_at } }];
      }
      case 'MarkSubscriptionPastDue': {
        if (command.collectionId !== f.latest_collection || !['active', 'trialing', 'pending_cancel'].includes(f.status)) return [];
        return [{ type: 'subscription.past_due', data: { ...base(state, id, 'past_due'), collection: command.collectionId } }];
      }
      case 'MarkSubscriptionUnpaid': {
        if (command.collectionId !== f.latest_collection || f.status !== 'past_due') return [];
        return [{ type: 'subscription.unpaid', data: { ...base(state, id, 'unpaid'), collection: command.collectionId } }];
      }
      case 'SetShipping': {
        refuseFinal('change the shipping of');
        return [{ type: 'subscription.updated', data: { ...base(state, id, f.status), changes: { shipping: command.shipping }, reason: 'api' } }];
      }
      case 'SetShippingItem': {
        refuseFinal('change the shipping item of');
        const item = command.shippingItem;
        const cur = currencyOf(f.currency)!;
        if (item) {
          if (typeof item.description !== 'string' || !item.description.trim()) throw missingParam('description');
          if (!isDecimalString(item.amount) || new Money(item.amount).lte(0)) throw invalidParam('amount', 'amount must be a decimal amount greater than 0');
          if (decimalPlaces(item.amount) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
        }
        const normalized = item ? { description: item.description.trim(), amount: formatAmount(item.amount, cur) } : null;
        return [{ type: 'subscription.updated', data: { ...base(state, id, f.status), changes: { shipping_item: normalized }, reason: 'api' } }];
      }
    }
  },

  evolve(state, event) {
    if (event.type === 'subscription.created' || event.type === 'subscription.scheduled') {
      return {
        exists: true,
        owner: { accountId: event.data.account_id, mode: event.data.is_test ? 'test' : 'live' },
        fields: applySubscriptionEvent(null as unknown as SubscriptionFields, event),
        trialCollection: event.data.status === 'trialing' ? event.data.first_collection : null,
      };
    }
    if (!state.fields) return state;
    return { ...state, fields: applySubscriptionEvent(state.fields, event) };
  },
};
