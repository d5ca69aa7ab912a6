import { accountsProjection } from './accounts.projection.js';
import { apiKeysProjection } from './api-keys.projection.js';
import { membersProjection, teamsProjection } from './members.projection.js';
import { securityLogProjection } from './security-log.projection.js';
import { withFeedEntries } from './event-feed.js';
import type { Projection, ServiceProjections } from '#projection-runtime/projection.js';
import { publicResourceProjections } from './public-resources.js';
import { subscriptionItemsProjection } from './subscription-items.projection.js';
import { revenueProjection } from './revenue.projection.js';
import { customerActivityProjection } from './customer-activity.projection.js';
import { webhookReplaysProjection } from './webhook-replays.projection.js';

/**
 * Every projection the service runs, in the order `projections rebuild` goes through them. The
 * public resources' projections also write the `evt_` feed's entries (see withFeedEntries).
 */
export function allProjections(): Projection[] {
  return [accountsProjection, apiKeysProjection, membersProjection, teamsProjection, securityLogProjection, ...publicResourceProjections().map(withFeedEntries), subscriptionItemsProjection, revenueProjection, customerActivityProjection, webhookReplaysProjection] as Projection[];
}

/** What the composition root (apps/api's AppModule) hands to the platform: the pipeline thread loads `allProjections` from this module. */
export const serviceProjections: ServiceProjections = { all: allProjections, module: import.meta.url };
