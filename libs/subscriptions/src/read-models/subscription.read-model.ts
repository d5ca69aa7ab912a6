import type { RecordedEvent } from '#event-store/event-store.port.js';
import { newOwnedDoc } from '#platform/owned-doc.js';
import type { OwnedDoc } from '#platform/read-models.js';
import type { DeadlineFields } from '#shared/deadlines.js';
import { type SubscriptionEvent, type SubscriptionFields, applySubscriptionEvent } from '../domain/subscription.decider.js';

/** What the subscription's read model knows of its latest collection (for the scheduler's `sync`). */
export interface LatestCollection {
  _latest_status?: string | null;
  _latest_status_at?: string | null;
  _latest_set_at?: string | null;
  _trial_collection?: string | null;
}

export type SubscriptionDoc = OwnedDoc & SubscriptionFields & DeadlineFields & LatestCollection & { object: 'subscription'; created_date: string };

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
