import { accountsProjection } from './accounts.projection.js';
import { apiKeysProjection } from './api-keys.projection.js';
import { eventFeedProjection } from './event-feed.projection.js';
import type { Projection } from './runtime/projection.js';
import { publicResourceProjections } from './public-resources.js';
import { subscriptionItemsProjection } from './subscription-items.projection.js';

/** Every projection the service runs, in the order `projections rebuild` goes through them. */
export function allProjections(): Projection[] {
  return [accountsProjection, apiKeysProjection, ...publicResourceProjections(), subscriptionItemsProjection, eventFeedProjection] as Projection[];
}
