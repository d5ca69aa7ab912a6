import type { RecordedEvent } from '#event-store/event-store.port.js';
import { collectionTotalAfter } from '#collections/read-models/collection-total.js';
import { Money, formatAmount } from '#shared/money.js';
import { calendarDayOf } from '#shared/dates.js';
import { eventIdFromUuid } from '#shared/ids.js';
import { type SubscriptionEvent, type SubscriptionFields, type SubscriptionStatus, applySubscriptionEvent } from '#subscriptions/domain/subscription.decider.js';
import type { ExchangeRate } from '#collections/exchange-rates/exchange-rates.port.js';
import { CHURN_STATUSES, COUNTED_STATUSES, RENEWING_STATUSES, type RatesTo, currencyOrNull, monthlyAmount, nextRenewalAmount } from '../domain/mrr.js';

/**
 * The revenue analytics' documents, one collection (`revenue`), written by projections/revenue.projection.ts:
 *
 * - a subscription's MRR state (`sub_…`): its fields, the rates of its latest collection, its MRR,
 *   whether it counts, and its next renewal;
 * - a customer's count of counted subscriptions per currency (`cus_…`), for paying customers;
 * - a collection's amount and trouble (`col_…`), for money collected, refunded, at risk and recovered;
 * - a day of an account and mode (`day:<account>:<mode>:<YYYY-MM-DD>`): per currency, the sum of what
 *   that day's events changed (RevenueDelta). Stocks (MRR, active subscriptions, at risk) are the sum
 *   of every day's changes up to a moment; flows (movements, collected) the sum over a range.
 *
 * Each event's changes are also kept as one entry per currency (`revenue_entries`, derived): the
 * movements list and its links to events, and the figures of the day that holds `as_of` (cut at the
 * instant, not the day). Both come from one pure function, revenueChanges().
 */
export const REVENUE_COLLECTION = 'revenue';
export const REVENUE_ENTRIES = 'revenue_entries';

export const MOVEMENT_TYPES = ['new', 'expansion', 'contraction', 'churn', 'reactivation'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

/** Money sums (decimal strings) and counts an event, or a day, changed; absent keys are 0. */
export interface RevenueDelta {
  /** MRR movements, as positive magnitudes. */
  new?: string;
  expansion?: string;
  contraction?: string;
  churn?: string;
  reactivation?: string;
  new_subscriptions?: number;
  churned_subscriptions?: number;
  reactivated_subscriptions?: number;
  /** Change of the number of counted subscriptions, and of customers with at least one. */
  active?: number;
  customers?: number;
  collected?: string;
  refunded?: string;
  /** Signed change of the amount past due. */
  at_risk?: string;
  recovered?: string;
  /** Change of the renewals expected on each day: count and amount. */
  due?: Record<string, { count: number; amount: string }>;
}

export const MONEY_KEYS = ['new', 'expansion', 'contraction', 'churn', 'reactivation', 'collected', 'refunded', 'at_risk', 'recovered'] as const;
export const COUNT_KEYS = ['new_subscriptions', 'churned_subscriptions', 'reactivated_subscriptions', 'active', 'customers'] as const;

interface Owned {
  id: string;
  _account: string;
  is_test: boolean;
  [key: string]: unknown;
}

export interface RevenueSubscriptionDoc extends Owned {
  _kind: 'subscription';
  customer: string;
  currency: string;
  status: SubscriptionStatus;
  fields: SubscriptionFields;
  rates: RatesTo;
  /** MRR while it counts (its price, normalised); null while it cannot be priced (a rate not yet known). */
  mrr: string | null;
  counted: boolean;
  ever_counted: boolean;
  /** In a churned status since it last counted. */
  churned: boolean;
  renewal: { day: string; amount: string } | null;
}

export interface RevenueCustomerDoc extends Owned {
  _kind: 'customer';
  /** Counted subscriptions per currency. */
  counted: Record<string, number>;
}

export interface RevenueCollectionDoc extends Owned {
  _kind: 'collection';
  currency: string;
  total: string;
  status: string;
  /** A payment failed or it fell past due: paying it now is a recovery. */
  troubled: boolean;
  past_due: boolean;
}

export interface RevenueDayDoc extends Owned {
  _kind: 'day';
  day: string;
  by_currency: Record<string, RevenueDelta>;
}

export type RevenueDoc = RevenueSubscriptionDoc | RevenueCustomerDoc | RevenueCollectionDoc | RevenueDayDoc;

/** An event's changes in one currency, as stored (derived, one per event and currency). */
export interface RevenueEntry {
  id: string;
  _account: string;
  is_test: boolean;
  currency: string;
  /** Calendar day (account's zone) and instant of the event. */
  day: string;
  at: string;
  /** The MRR movement, when the event made one (the movements list filters on it). */
  type: MovementType | null;
  /** Signed MRR change of the movement. */
  amount: string | null;
  mrr_before: string | null;
  mrr_after: string | null;
  subscription: string | null;
  customer: string | null;
  collection: string | null;
  event: string;
  event_type: string;
  delta: RevenueDelta;
}

export const dayDocId = (account: string, test: boolean, day: string) => `day:${account}:${test ? 'test' : 'live'}:${day}`;

/** A related document of the same event: its state before and after it (documents projected earlier in documentIds' order). */
export type Related = ReadonlyMap<string, { before: Record<string, unknown> | null; after: Record<string, unknown> | null }>;

/** The documents an event changes, in the order their projection needs (a day's changes read the others'). */
export function revenueDocIds(e: RecordedEvent): string[] {
  const account = e.metadata.account_id;
  if (typeof account !== 'string') return [];
  // The event's day in the account's zone, only for the events this projection reads (a time-zone
  // conversion is the dearest step here, and most events of a log are of other streams).
  const day = () => dayDocId(account, e.metadata.mode === 'test', calendarDayOf(e.metadata.occurred_at));
  if (e.streamId.startsWith('subscription-')) {
    const id = e.streamId.slice('subscription-'.length);
    const customer = typeof e.data.customer === 'string' ? e.data.customer : null;
    return customer ? [id, customer, day()] : [id, day()];
  }
  if (e.streamId.startsWith('collection-')) {
    if (!COLLECTION_EVENTS.has(e.type)) return [];
    const id = e.streamId.slice('collection-'.length);
    const sub = e.type === 'collection.created' && typeof e.data.subscription === 'string' ? e.data.subscription : null;
    return sub ? [id, sub, day()] : [id, day()];
  }
  return [];
}

const COLLECTION_EVENTS = new Set([
  'collection.created',
  'collection.updated',
  'collection.total_updated',
  'collection.partial_payment_defined',
  'collection.credited',
  'collection.credit_reversed',
  'collection.payment_applied',
  'collection.payment_failed',
  'collection.past_due',
  'collection.paid',
  'collection.uncollectible',
  'collection.voided',
  'collection.refunded',
]);

/** A document after an event (pure). */
export function projectRevenue(doc: RevenueDoc | null, e: RecordedEvent, id: string, related: Related): RevenueDoc | null {
  if (id.startsWith('day:')) return projectDay(doc as RevenueDayDoc | null, e, id, related);
  if (e.streamId.startsWith('subscription-')) {
    if (id === e.streamId.slice('subscription-'.length)) return projectSubscription(doc as RevenueSubscriptionDoc | null, e);
    return projectCustomer(doc as RevenueCustomerDoc | null, e, id, related);
  }
  if (id === e.streamId.slice('collection-'.length)) return projectCollection(doc as RevenueCollectionDoc | null, e);
  // collection.created of a subscription's collection: the rates it stored.
  return withRates(doc as RevenueSubscriptionDoc | null, (e.data.exchange_rates ?? []) as ExchangeRate[]);
}

function owned(e: RecordedEvent): { _account: string; is_test: boolean } {
  return { _account: String(e.metadata.account_id), is_test: e.metadata.mode === 'test' };
}

function projectSubscription(doc: RevenueSubscriptionDoc | null, e: RecordedEvent): RevenueSubscriptionDoc | null {
  const event = e as unknown as SubscriptionEvent;
  if (event.type === 'subscription.created' || event.type === 'subscription.scheduled') {
    const fields = applySubscriptionEvent(null as unknown as SubscriptionFields, event);
    const fresh: RevenueSubscriptionDoc = {
      id: event.data.id,
      ...owned(e),
      _kind: 'subscription',
      customer: fields.customer,
      currency: fields.currency,
      status: fields.status,
      fields,
      rates: {},
      mrr: null,
      counted: false,
      ever_counted: false,
      churned: false,
      renewal: null,
    };
    return settle(fresh, null);
  }
  if (!doc) return doc;
  const fields = applySubscriptionEvent(doc.fields, event);
  return settle({ ...doc, fields, status: fields.status, customer: fields.customer }, doc);
}

function withRates(doc: RevenueSubscriptionDoc | null, rates: ExchangeRate[]): RevenueSubscriptionDoc | null {
  if (!doc || doc._kind !== 'subscription' || rates.length === 0) return doc;
  const next: RatesTo = { ...doc.rates };
  for (const r of rates) if (r.to?.toUpperCase() === doc.currency.toUpperCase()) next[r.from.toUpperCase()] = r.rate;
  return settle({ ...doc, rates: next }, doc);
}

/** MRR, whether it counts, churn and next renewal, from its fields and rates. */
function settle(doc: RevenueSubscriptionDoc, before: RevenueSubscriptionDoc | null): RevenueSubscriptionDoc {
  const f = doc.fields;
  const mrr = monthlyAmount(f, doc.rates);
  const counted = COUNTED_STATUSES.has(f.status) && mrr !== null;
  let churned = before?.churned ?? false;
  if (CHURN_STATUSES.has(f.status)) churned = churned || !!before?.counted || !!before?.ever_counted;
  else if (counted) churned = false;
  let renewal: RevenueSubscriptionDoc['renewal'] = null;
  if (RENEWING_STATUSES.has(f.status) && f.next_renewal_date && !(f.cancel_at && Date.parse(f.cancel_at) <= Date.parse(f.next_renewal_date))) {
    const amount = nextRenewalAmount(f, doc.rates);
    if (amount !== null) renewal = { day: calendarDayOf(f.next_renewal_date), amount };
  }
  return { ...doc, mrr, counted, ever_counted: (before?.ever_counted ?? false) || counted, churned, renewal };
}

function projectCustomer(doc: RevenueCustomerDoc | null, e: RecordedEvent, id: string, related: Related): RevenueCustomerDoc | null {
  const sub = related.get(e.streamId.slice('subscription-'.length));
  if (!sub) return doc;
  const before = sub.before as RevenueSubscriptionDoc | null;
  const after = sub.after as RevenueSubscriptionDoc | null;
  const change = (after?.counted ? 1 : 0) - (before?.counted ? 1 : 0);
  const base: RevenueCustomerDoc = doc ?? { id, ...owned(e), _kind: 'customer', counted: {} };
  if (change === 0) return base;
  const currency = (after ?? before)!.currency;
  return { ...base, counted: { ...base.counted, [currency]: (base.counted[currency] ?? 0) + change } };
}

function projectCollection(doc: RevenueCollectionDoc | null, e: RecordedEvent): RevenueCollectionDoc | null {
  const d = e.data as Record<string, any>;
  if (e.type === 'collection.created') {
    return { id: d.id, ...owned(e), _kind: 'collection', currency: d.currency, total: d.total, status: d.status ?? 'pending', troubled: false, past_due: false };
  }
  if (!doc) return doc;
  const total = collectionTotalAfter(e);
  if (total !== undefined) return { ...doc, total };
  switch (e.type) {
    case 'collection.payment_failed':
      return { ...doc, troubled: true };
    case 'collection.past_due':
      return { ...doc, troubled: true, past_due: true, status: 'past_due' };
    case 'collection.paid':
      return { ...doc, past_due: false, status: 'paid' };
    case 'collection.uncollectible':
    case 'collection.voided':
      return { ...doc, past_due: false, status: e.type.slice('collection.'.length) };
    case 'collection.refunded':
      return { ...doc, status: typeof d.status === 'string' ? d.status : doc.status };
    default:
      return doc;
  }
}

const ZERO = new Money(0);

function money(value: Money, currency: string): string {
  const cur = currencyOrNull(currency);
  return cur ? formatAmount(value, cur) : value.toFixed();
}

/**
 * What an event changed, per currency, with the MRR movement it made (if any). Pure: the same event
 * and related documents give the same changes, in the day's document and in the entry alike.
 */
export function revenueChanges(e: RecordedEvent, related: Related): Map<string, { delta: RevenueDelta; movement: Pick<RevenueEntry, 'type' | 'amount' | 'mrr_before' | 'mrr_after'> | null; subscription: string | null; customer: string | null; collection: string | null }> {
  const out = new Map<string, { delta: RevenueDelta; movement: Pick<RevenueEntry, 'type' | 'amount' | 'mrr_before' | 'mrr_after'> | null; subscription: string | null; customer: string | null; collection: string | null }>();
  const subId = e.streamId.startsWith('subscription-') ? e.streamId.slice('subscription-'.length) : e.type === 'collection.created' && typeof e.data.subscription === 'string' ? e.data.subscription : null;
  const colId = e.streamId.startsWith('collection-') ? e.streamId.slice('collection-'.length) : null;
  const sub = subId ? related.get(subId) : undefined;
  if (sub) {
    const before = sub.before as RevenueSubscriptionDoc | null;
    const after = sub.after as RevenueSubscriptionDoc | null;
    if (after && after._kind === 'subscription') {
      const currency = after.currency;
      const delta: RevenueDelta = {};
      let movement: Pick<RevenueEntry, 'type' | 'amount' | 'mrr_before' | 'mrr_after'> | null = null;
      const bM = before?.counted ? new Money(before.mrr!) : ZERO;
      const aM = after.counted ? new Money(after.mrr!) : ZERO;
      const enteringChurn = CHURN_STATUSES.has(after.status) && !(before && CHURN_STATUSES.has(before.status));
      const move = (type: MovementType, amount: Money) => {
        movement = { type, amount: money(amount, currency), mrr_before: money(bM, currency), mrr_after: money(aM, currency) };
        delta[type] = money(amount.abs(), currency);
      };
      if (enteringChurn && before?.counted) {
        move('churn', bM.neg());
        delta.churned_subscriptions = 1;
      } else if (!before?.counted && after.counted) {
        if (before?.churned) {
          move('reactivation', aM);
          delta.reactivated_subscriptions = 1;
        } else if (!before?.ever_counted) {
          move('new', aM);
          delta.new_subscriptions = 1;
        } else move('expansion', aM);
      } else if (before?.counted && !after.counted) move('contraction', bM.neg());
      else if (before?.counted && after.counted && !aM.eq(bM)) move(aM.gt(bM) ? 'expansion' : 'contraction', aM.minus(bM));
      const active = (after.counted ? 1 : 0) - (before?.counted ? 1 : 0);
      if (active !== 0) delta.active = active;
      const customer = related.get(after.customer);
      if (customer) {
        const cb = (customer.before as RevenueCustomerDoc | null)?.counted?.[currency] ?? 0;
        const ca = (customer.after as RevenueCustomerDoc | null)?.counted?.[currency] ?? 0;
        const change = (ca > 0 ? 1 : 0) - (cb > 0 ? 1 : 0);
        if (change !== 0) delta.customers = change;
      }
      const due = dueChange(before?.renewal ?? null, after.renewal, currency);
      if (due) delta.due = due;
      if (Object.keys(delta).length) out.set(currency, { delta, movement, subscription: after.id, customer: after.customer, collection: null });
    }
  }
  const col = colId ? related.get(colId) : undefined;
  if (col && col.after) {
    const before = col.before as RevenueCollectionDoc | null;
    const after = col.after as RevenueCollectionDoc;
    const currency = after.currency;
    const delta: RevenueDelta = {};
    const d = e.data as Record<string, any>;
    if (e.type === 'collection.paid' && before && before.status !== 'paid' && !d.paid_by && !d.credit_note) {
      const paid = new Money(before.total);
      if (paid.gt(0)) {
        delta.collected = money(paid, currency);
        if (before.troubled) delta.recovered = money(paid, currency);
      }
    }
    if (e.type === 'collection.refunded' && typeof d.amount === 'string') delta.refunded = money(new Money(d.amount), currency);
    const risk = (after.past_due ? new Money(after.total) : ZERO).minus(before?.past_due ? new Money(before.total) : ZERO);
    if (!risk.isZero()) delta.at_risk = money(risk, currency);
    if (Object.keys(delta).length) {
      const entry = out.get(currency);
      if (entry) entry.delta = addDelta(entry.delta, delta);
      else out.set(currency, { delta, movement: null, subscription: typeof d.subscription === 'string' ? d.subscription : null, customer: typeof d.customer === 'string' ? d.customer : null, collection: colId });
    }
  }
  return out;
}

function dueChange(before: RevenueSubscriptionDoc['renewal'], after: RevenueSubscriptionDoc['renewal'], currency: string): RevenueDelta['due'] | null {
  if (before?.day === after?.day && before?.amount === after?.amount) return null;
  const due: NonNullable<RevenueDelta['due']> = {};
  const add = (day: string, count: number, amount: Money) => {
    const prior = due[day];
    const total = { count: (prior?.count ?? 0) + count, amount: money(new Money(prior?.amount ?? 0).plus(amount), currency) };
    if (total.count === 0 && new Money(total.amount).isZero()) delete due[day];
    else due[day] = total;
  };
  if (before) add(before.day, -1, new Money(before.amount).neg());
  if (after) add(after.day, 1, new Money(after.amount));
  return Object.keys(due).length ? due : null;
}

/** a + b, key by key (money as decimals, counts as integers, due per day); zeros dropped. */
export function addDelta(a: RevenueDelta, b: RevenueDelta): RevenueDelta {
  const out: RevenueDelta = { ...a };
  for (const k of MONEY_KEYS) {
    if (b[k] === undefined) continue;
    const sum = new Money(a[k] ?? 0).plus(b[k]!);
    if (sum.isZero()) delete out[k];
    else out[k] = sum.toFixed();
  }
  for (const k of COUNT_KEYS) {
    if (b[k] === undefined) continue;
    const sum = (a[k] ?? 0) + b[k]!;
    if (sum === 0) delete out[k];
    else out[k] = sum;
  }
  if (b.due) {
    const due: NonNullable<RevenueDelta['due']> = { ...(a.due ?? {}) };
    for (const [day, v] of Object.entries(b.due)) {
      const count = (due[day]?.count ?? 0) + v.count;
      const amount = new Money(due[day]?.amount ?? 0).plus(v.amount);
      if (count === 0 && amount.isZero()) delete due[day];
      else due[day] = { count, amount: amount.toFixed() };
    }
    if (Object.keys(due).length) out.due = due;
    else delete out.due;
  }
  return out;
}

function projectDay(doc: RevenueDayDoc | null, e: RecordedEvent, id: string, related: Related): RevenueDayDoc | null {
  const changes = revenueChanges(e, related);
  const base: RevenueDayDoc = doc ?? { id, ...owned(e), _kind: 'day', day: calendarDayOf(e.metadata.occurred_at), by_currency: {} };
  if (changes.size === 0) return base;
  const by_currency = { ...base.by_currency };
  for (const [currency, { delta }] of changes) by_currency[currency] = addDelta(by_currency[currency] ?? {}, delta);
  return { ...base, by_currency };
}

/** The entries of an event (derived from its day's document, once per event). */
export function revenueEntries(e: RecordedEvent, related: Related): RevenueEntry[] {
  const entries: RevenueEntry[] = [];
  const event = eventIdFromUuid(e.id);
  for (const [currency, c] of revenueChanges(e, related)) {
    entries.push({
      id: `${event}:${currency}`,
      ...owned(e),
      currency,
      day: calendarDayOf(e.metadata.occurred_at),
      at: e.metadata.occurred_at,
      type: c.movement?.type ?? null,
      amount: c.movement?.amount ?? null,
      mrr_before: c.movement?.mrr_before ?? null,
      mrr_after: c.movement?.mrr_after ?? null,
      subscription: c.subscription,
      customer: c.customer,
      collection: c.collection,
      event,
      event_type: e.type,
      delta: c.delta,
    });
  }
  return entries;
}
