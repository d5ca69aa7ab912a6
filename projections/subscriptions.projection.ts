import {
  type SubscriptionEvent,
  type SubscriptionFields,
  applySubscriptionEvent,
} from '../libs/subscriptions/src/domain/subscription.decider.js';
import type { OwnedDoc } from '../libs/platform/src/read-models.js';
import type { RecordedEvent } from '../libs/event-store/src/event-store.port.js';
import type { Projection } from './runtime/projection.js';
import { newOwnedDoc, TENANT_INDEXES } from './owned-doc.js';

export type SubscriptionDoc = OwnedDoc & SubscriptionFields & { object: 'subscription'; created_date: string };

/** The subscription after one event: used by the read model and by `?as_of=` (folded over the stream). */
export function projectSubscription(doc: SubscriptionDoc | null, event: RecordedEvent): SubscriptionDoc | null {
  const e = event as unknown as SubscriptionEvent;
  if (e.type === 'subscription.created' || e.type === 'subscription.scheduled') {
    const { id, account_id, is_test, created_at } = e.data;
    return newOwnedDoc('subscription', { id, account_id, is_test, created_at }, applySubscriptionEvent(null as unknown as SubscriptionFields, e)) as SubscriptionDoc;
  }
  if (!doc) return doc;
  return { ...doc, ...applySubscriptionEvent(doc, e) };
}

/** Subscriptions as GET /v1/subscriptions serves them. */
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
      ],
    },
  ],
  documentIds: (e) => (e.streamId.startsWith('subscription-') ? [e.streamId.slice('subscription-'.length)] : []),
  project: (doc, event) => projectSubscription(doc, event),
};
