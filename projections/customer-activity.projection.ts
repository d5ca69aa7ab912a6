import type { Doc, Projection, RelatedDocs } from '#projection-runtime/projection.js';
import { collectionTotalAfter } from '#collections/read-models/collection-total.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { Money } from '#shared/money.js';

/**
 * What the dashboard's customers list shows of each customer's business (issue 31 §1): its active
 * subscriptions and what it has paid, per currency. Kept by events, read with one getMany per page.
 *
 * Two kinds of documents in `customer_activity`:
 * - `<customer id>`: `subscriptions` (each subscription's last status) and `paid` (each paid
 *   collection's total and currency), with the counts they give: `active_subscriptions` and
 *   `total_paid` ({ currency: decimal string }). Maps, not counters: an event sets one entry, so a
 *   redelivered event changes nothing and no previous status is needed. A customer has few
 *   subscriptions; its paid collections grow one per period (a monthly subscription: 12 a year).
 * - `col:<collection id>`: the collection's customer, total, currency and status, since
 *   `collection.paid` carries neither the total nor the currency; the customer's document reads it
 *   through `related` (the same event's documents projected before it).
 */
export const CUSTOMER_ACTIVITY = 'customer_activity';

/** The statuses a subscription counts as active in (it renews, or will). */
export const ACTIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due', 'pending_cancel']);

export interface CustomerActivityDoc extends Doc {
  _kind: 'customer';
  _account: string;
  is_test: boolean;
  subscriptions: Record<string, string>;
  paid: Record<string, { total: string; currency: string }>;
  active_subscriptions: number;
  total_paid: Record<string, string>;
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

type ActivityDoc = CustomerActivityDoc | CollectionActivityDoc;

const colDocId = (id: string) => `col:${id}`;

function customerOf(e: RecordedEvent): string | null {
  return typeof e.data.customer === 'string' ? e.data.customer : null;
}

function owned(e: RecordedEvent) {
  return { _account: String(e.metadata.account_id), is_test: e.metadata.mode === 'test' };
}

function counted(doc: CustomerActivityDoc): CustomerActivityDoc {
  const totals = new Map<string, Money>();
  for (const { total, currency } of Object.values(doc.paid)) totals.set(currency, (totals.get(currency) ?? new Money(0)).plus(total));
  return {
    ...doc,
    active_subscriptions: Object.values(doc.subscriptions).filter((s) => ACTIVE_STATUSES.has(s)).length,
    total_paid: Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)).map(([c, m]) => [c, m.toFixed()])),
  };
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

function projectCustomer(doc: CustomerActivityDoc | null, e: RecordedEvent, id: string, related: RelatedDocs | undefined): CustomerActivityDoc | null {
  const base: CustomerActivityDoc = doc ?? { id, _kind: 'customer', ...owned(e), subscriptions: {}, paid: {}, active_subscriptions: 0, total_paid: {} };
  if (e.streamId.startsWith('subscription-')) {
    const status = e.data.status;
    if (typeof status !== 'string') return doc;
    const sub = e.streamId.slice('subscription-'.length);
    if (base.subscriptions[sub] === status && doc) return doc;
    return counted({ ...base, subscriptions: { ...base.subscriptions, [sub]: status } });
  }
  // A collection's event: its document (projected just before, in this event) says whether it is paid now.
  const col = related?.get(colDocId(e.streamId.slice('collection-'.length)))?.after as CollectionActivityDoc | null | undefined;
  if (!col) return doc; // redelivered (the collection's document already had it) or never created
  const { [col.id.slice(4)]: _was, ...others } = base.paid;
  const paid = col.status === 'paid' ? { ...others, [col.id.slice(4)]: { total: col.total, currency: col.currency } } : others;
  if (doc && JSON.stringify(paid) === JSON.stringify(base.paid)) return doc;
  return counted({ ...base, paid });
}

/** The customer activity projection (see CUSTOMER_ACTIVITY). */
export const customerActivityProjection: Projection<ActivityDoc> = {
  name: 'customer_activity',
  collection: CUSTOMER_ACTIVITY,
  collections: [{ name: CUSTOMER_ACTIVITY, indexes: [] }],
  documentIds(e) {
    const customer = customerOf(e);
    if (!customer) return [];
    if (e.streamId.startsWith('subscription-') && e.type.startsWith('subscription.')) return [customer];
    if (e.streamId.startsWith('collection-') && e.type.startsWith('collection.')) return [colDocId(e.streamId.slice('collection-'.length)), customer];
    return [];
  },
  project(doc, e, id, related) {
    if (id.startsWith('col:')) return projectCollection(doc as CollectionActivityDoc | null, e);
    return projectCustomer(doc as CustomerActivityDoc | null, e, id, related);
  },
};
