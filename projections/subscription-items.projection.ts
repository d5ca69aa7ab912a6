import type { SubscriptionEvent, SubscriptionItem } from '#subscriptions/domain/subscription.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { SubscriptionItemDoc } from '#subscriptions/read-models/subscription-item.read-model.js';
import { TENANT_INDEXES } from '#platform/owned-doc.js';
import { formatCreatedDate } from '#shared/dates.js';

function itemsOf(e: SubscriptionEvent): SubscriptionItem[] | null {
  if (e.type === 'subscription.created' || e.type === 'subscription.scheduled') return e.data.items;
  if (e.type === 'subscription.updated' && e.data.changes.items) return e.data.changes.items;
  return null;
}

/** Subscription items by id (GET /v1/subscription_items/{id}), kept in step with their subscription. */
export const subscriptionItemsProjection: Projection<SubscriptionItemDoc> = {
  name: 'subscription_items',
  collection: 'subscription_items',
  collections: [{ name: 'subscription_items', indexes: [...TENANT_INDEXES, { fields: ['subscription'] }] }],
  documentIds(event) {
    if (!event.streamId.startsWith('subscription-')) return [];
    const e = event as unknown as SubscriptionEvent;
    const items = itemsOf(e) ?? [];
    const removed = e.type === 'subscription.updated' ? e.data.removed_items ?? [] : [];
    return [...items.map((i) => i.id), ...removed];
  },
  project(doc, event, id) {
    const e = event as unknown as SubscriptionEvent;
    const item = (itemsOf(e) ?? []).find((i) => i.id === id);
    if (!item) return null; // removed from the subscription
    const subscription = event.streamId.slice('subscription-'.length);
    const { id: _id, ...fields } = item;
    if (doc) return { ...doc, ...fields };
    return {
      id,
      object: 'subscription_item',
      subscription,
      ...fields,
      created_date: formatCreatedDate(new Date(event.metadata.occurred_at)),
      is_test: event.metadata.mode === 'test',
      _account: String(event.metadata.account_id),
      _created: event.metadata.occurred_at,
      _deleted: false,
    } as SubscriptionItemDoc;
  },
};
