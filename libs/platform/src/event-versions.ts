import { EventVersions } from '#event-store/upcasting.js';
import { SUBSCRIPTION_EVENT_VERSIONS, SUBSCRIPTION_UPCASTERS } from '#subscriptions/domain/subscription/subscription.upcasters.js';

/**
 * The service's event versions (docs/event-versions.md): each type's current version (1 unless
 * listed) and the upcasters that bring older stored events to it. Built when the module loads: a
 * missing step refuses to start. Used by every store the service reads events through (stores.ts,
 * the projection pipeline's thread).
 */
export const SERVICE_EVENT_VERSIONS = new EventVersions({ ...SUBSCRIPTION_EVENT_VERSIONS }, [...SUBSCRIPTION_UPCASTERS]);
