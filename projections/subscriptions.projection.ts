import {
  type SubscriptionEvent,
  type SubscriptionFields,
  applySubscriptionEvent,
  subscriptionDeadline,
} from '#subscriptions/domain/subscription.decider.js';
import type { OwnedDoc } from '#platform/read-models.js';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { Projection } from './runtime/projection.js';
import { newOwnedDoc, TENANT_INDEXES } from './owned-doc.js';
import { DEADLINE_INDEX, type DeadlineFields, deadlinesFields } from './deadlines.js';

/** What the subscription's read model knows of its latest collection (for the scheduler's `sync`). */
interface LatestCollection {
  _latest_status?: string | null;
  _latest_status_at?: string | null;
  _latest_set_at?: string | null;
  _trial_collection?: string | null;
}

export type SubscriptionDoc = OwnedDoc & SubscriptionFields & DeadlineFields & LatestCollection & { object: 'subscription'; created_date: string };

/** Collection events → the status they leave a collection in (those that change it). */
const COLLECTION_STATUS: Record<string, string> = {
  'collection.created': 'pending',
  'charge.pending': 'processing',
  'collection.paid': 'paid',
  'collection.past_due': 'past_due',
  'collection.uncollectible': 'uncollectible',
  'collection.voided': 'voided',
};

/** A subscription whose latest collection is ahead of it (paid, past due, given up) or missing: the scheduler syncs it. */
export const SYNC_GRACE_MS = 60_000;
function syncDeadline(doc: SubscriptionDoc): { kind: string; at: string } | null {
  const status = doc._latest_status;
  if (!doc.latest_collection) return null;
  if (!status) {
    // The collection was named but never written (the process stopped in between).
    if (['incomplete', 'trialing', 'active', 'past_due', 'pending_cancel'].includes(doc.status) && doc._latest_set_at) {
      return { kind: 'sync', at: new Date(Date.parse(doc._latest_set_at) + SYNC_GRACE_MS).toISOString() };
    }
    return null;
  }
  const at = doc._latest_status_at ?? doc._created;
  if (status === 'paid' && doc.latest_collection !== doc._trial_collection && ['incomplete', 'trialing', 'past_due', 'unpaid'].includes(doc.status)) return { kind: 'sync', at };
  if (status === 'past_due' && ['active', 'trialing', 'pending_cancel'].includes(doc.status)) return { kind: 'sync', at };
  if (status === 'uncollectible' && doc.status === 'past_due') return { kind: 'sync', at };
  return null;
}

/**
 * A scheduled cancellation (`pending_cancel`, or overdue since) is pending even while a committed
 * renewal comes first: kept beside it, so it never waits behind a renewal that decides nothing.
 */
function cancellation(doc: SubscriptionDoc): { kind: string; at: string } | null {
  return doc.cancel_at && ['pending_cancel', 'past_due'].includes(doc.status) ? { kind: 'cancel', at: doc.cancel_at } : null;
}

function withDeadline(doc: SubscriptionDoc): SubscriptionDoc {
  return { ...doc, ...deadlinesFields(doc.test_clock, [subscriptionDeadline(doc), cancellation(doc), syncDeadline(doc)]) };
}

/** The subscription after one of its own events: used by the read model and by `?as_of=` (folded over the stream). */
export function projectSubscription(doc: SubscriptionDoc | null, event: RecordedEvent): SubscriptionDoc | null {
  const e = event as unknown as SubscriptionEvent;
  if (e.type === 'subscription.created' || e.type === 'subscription.scheduled') {
    const { id, account_id, is_test, created_at } = e.data;
    const created = newOwnedDoc('subscription', { id, account_id, is_test, created_at }, applySubscriptionEvent(null as unknown as SubscriptionFields, e)) as SubscriptionDoc;
    return {
      ...created,
      _latest_status: null,
      _latest_status_at: null,
      _latest_set_at: created.latest_collection ? event.metadata.occurred_at : null,
      _trial_collection: e.data.status === 'trialing' ? e.data.first_collection : null,
    };
  }
  if (!doc) return doc;
  const next = { ...doc, ...applySubscriptionEvent(doc, e) };
  if (next.latest_collection !== doc.latest_collection) {
    return { ...next, _latest_status: null, _latest_status_at: null, _latest_set_at: event.metadata.occurred_at };
  }
  return next;
}

/** Subscriptions as GET /v1/subscriptions serves them, with the status of their latest collection and their next deadline. */
export const subscriptionsProjection: Projection<SubscriptionDoc> = {
  name: 'subscriptions',
  category: 'subscription',
  object: 'subscription',
  collection: 'subscriptions',
  collections: [
    {
      name: 'subscriptions',
      indexes: [
        ...TENANT_INDEXES,
        { fields: ['_account', 'is_test', 'customer', '_created'] },
        { fields: ['_account', 'is_test', 'status', '_created'] },
        DEADLINE_INDEX,
      ],
    },
  ],
  documentIds(e) {
    if (e.streamId.startsWith('subscription-')) return [e.streamId.slice('subscription-'.length)];
    if (e.streamId.startsWith('collection-') && COLLECTION_STATUS[e.type] && typeof e.data.subscription === 'string') return [e.data.subscription];
    return [];
  },
  project(doc, event) {
    if (event.streamId.startsWith('collection-')) {
      if (!doc || doc.latest_collection !== event.streamId.slice('collection-'.length)) return doc;
      return withDeadline({ ...doc, _latest_status: COLLECTION_STATUS[event.type], _latest_status_at: event.metadata.occurred_at });
    }
    const next = projectSubscription(doc, event);
    return next && withDeadline(next);
  },
};
