import { subscriptionDeadline } from '#subscriptions/domain/subscription.decider.js';
import { projectSubscription, type SubscriptionDoc } from '#subscriptions/read-models/subscription.read-model.js';
import type { Projection } from '#projection-runtime/projection.js';
import { TENANT_INDEXES } from '#platform/owned-doc.js';
import { DEADLINE_INDEX, deadlinesFields } from '#shared/deadlines.js';

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
