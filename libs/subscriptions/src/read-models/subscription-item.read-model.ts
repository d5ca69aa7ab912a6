import type { OwnedDoc } from '#platform/read-models.js';
import type { SubscriptionItem } from '../domain/subscription.decider.js';

/** A subscription item as the `subscription_items` read model holds it (GET /v1/subscription_items/{id}). */
export type SubscriptionItemDoc = OwnedDoc &
  Omit<SubscriptionItem, 'id'> & { object: 'subscription_item'; subscription: string; created_date: string };
