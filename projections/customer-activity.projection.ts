import type { Doc, Projection, RelatedDocs } from '#projection-runtime/projection.js';
import { collectionTotalAfter } from '#collections/read-models/collection-total.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { Money } from '#shared/money.js';

/**
 * What the dashboard's customers list shows of each customer's business: its active subscriptions and
 * what it has paid, per currency. Kept by events, read with one getMany per page.
 *
 * Three kinds of documents in `customer_totals`:
 * - `sub:<subscription id>`: the subscription's customer and last status;
 * - `col:<collection id>`: the collection's customer, total, currency and status (`collection.paid`
 *   carries neither the total nor the currency);
 * - `<customer id>`: the counters `active_subscriptions` and `total_paid` ({ currency: decimal
 *   string }), changed by the difference between the item's document before and after the event (read
 *   through `related`: the same event's documents projected before it). A redelivered event finds its
 *   item document already changed (absent from `related`): the counters do not move. The customer's
 *   document stays the same size whatever its history (a map of every subscription and paid
 *   collection grew with each period and was copied on every event: quadratic for a busy customer).
 */
export const CUSTOMER_ACTIVITY = 'customer_totals';

/** The statuses a subscription counts as active in (it renews, or will). */
export const ACTIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due', 'pending_cancel']);

export interface CustomerActivityDoc extends Doc {
  _kind: 'customer';
  _account: string;
  is_test: boolean;
  active_subscriptions: number;
  total_paid: Record<string, string>;
}

interface SubscriptionActivityDoc extends Doc {
  _kind: 'subscription';
  _account: string;
  is_test: boolean;
  customer: string;
  status: string;
}

interface CollectionActivityDoc extends Doc {
  _kind: 'collection';
  _account: string;
  is_test: boolean;
  customer: string;
  total: string;
  currency: string;
  status: string;
}

type ActivityDoc = CustomerActivityDoc | SubscriptionActivityDoc | CollectionActivityDoc;

const subDocId = (id: string) => `sub:${id}`;
const colDocId = (id: string) => `col:${id}`;

function customerOf(e: RecordedEvent): string | null {
  return typeof e.data.customer === 'string' ? e.data.customer : null;
}

function owned(e: RecordedEvent) {
  return { _account: String(e.metadata.account_id), is_test: e.metadata.mode === 'test' };
}

function projectSubscription(doc: SubscriptionActivityDoc | null, e: RecordedEvent, id: string): SubscriptionActivityDoc | null {
  const status = e.data.status;
  if (typeof status !== 'string' || doc?.status === status) return doc;
  return { ...(doc ?? { id, _kind: 'subscription', ...owned(e), customer: String(e.data.customer) }), status };
}

function projectCollection(doc: CollectionActivityDoc | null, e: RecordedEvent): CollectionActivityDoc | null {
  const d = e.data as Record<string, any>;
  if (e.type === 'collection.created') {
    return { id: colDocId(String(d.id)), _kind: 'collection', ...owned(e), customer: String(d.customer), total: String(d.total), currency: String(d.currency), status: String(d.status ?? 'pending') };
  }
  if (!doc) return doc;
  const total = collectionTotalAfter(e);
  if (total !== undefined) return { ...doc, total };
  switch (e.type) {
    case 'collection.paid':
    case 'collection.past_due':
    case 'collection.uncollectible':
    case 'collection.voided':
      return { ...doc, status: e.type.slice('collection.'.length) };
    case 'collection.refunded':
      return typeof d.status === 'string' ? { ...doc, status: d.status } : doc;
    default:
      return doc;
  }
}

const activeCount = (d: Doc | null | undefined) => (d && ACTIVE_STATUSES.has(String((d as SubscriptionActivityDoc).status)) ? 1 : 0);
const paidAmount = (d: Doc | null | undefined) => (d && (d as CollectionActivityDoc).status === 'paid' ? (d as CollectionActivityDoc) : null);

function projectCustomer(doc: CustomerActivityDoc | null, e: RecordedEvent, id: string, related: RelatedDocs | undefined): CustomerActivityDoc | null {
  const isSubscription = e.streamId.startsWith('subscription-');
  const itemId = isSubscription ? subDocId(e.streamId.slice('subscription-'.length)) : colDocId(e.streamId.slice('collection-'.length));
  // The item's document, projected just before in this event; absent: unchanged or redelivered.
  const item = related?.get(itemId);
  if (!item) return doc;
  const base: CustomerActivityDoc = doc ?? { id, _kind: 'customer', ...owned(e), active_subscriptions: 0, total_paid: {} };
  if (isSubscription) {
    const delta = activeCount(item.after) - activeCount(item.before);
    return delta === 0 && doc ? doc : { ...base, active_subscriptions: base.active_subscriptions + delta };
  }
  const before = paidAmount(item.before);
  const after = paidAmount(item.after);
  if (!before && !after) return doc ?? base;
  const totals = new Map(Object.entries(base.total_paid).map(([c, v]) => [c, new Money(v)]));
  if (before) totals.set(before.currency, (totals.get(before.currency) ?? new Money(0)).minus(before.total));
  if (after) totals.set(after.currency, (totals.get(after.currency) ?? new Money(0)).plus(after.total));
  return { ...base, total_paid: Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)).map(([c, m]) => [c, m.toFixed()])) };
}

/** The customer activity projection (see CUSTOMER_ACTIVITY). */
export const customerActivityProjection: Projection<ActivityDoc> = {
  name: 'customer_totals',
  collection: CUSTOMER_ACTIVITY,
  collections: [{ name: CUSTOMER_ACTIVITY, indexes: [] }],
  documentIds(e) {
    const customer = customerOf(e);
    if (!customer) return [];
    if (e.streamId.startsWith('subscription-') && e.type.startsWith('subscription.')) return [subDocId(e.streamId.slice('subscription-'.length)), customer];
    if (e.streamId.startsWith('collection-') && e.type.startsWith('collection.')) return [colDocId(e.streamId.slice('collection-'.length)), customer];
    return [];
  },
  project(doc, e, id, related) {
    if (id.startsWith('sub:')) return projectSubscription(doc as SubscriptionActivityDoc | null, e, id);
    if (id.startsWith('col:')) return projectCollection(doc as CollectionActivityDoc | null, e);
    return projectCustomer(doc as CustomerActivityDoc | null, e, id, related);
  },
};
