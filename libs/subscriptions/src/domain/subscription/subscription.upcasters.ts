import type { Upcaster } from '#event-store/upcasting.js';

/**
 * Retired shapes of the subscription's events (docs/event-versions.md).
 *
 * `subscription.created` version 1 called the number of billing periods between renewals
 * `interval_count`; version 2 calls it `billing_interval`, as the subscription resource and every later
 * event do. Events stored as version 1 are read as version 2.
 */
export const SUBSCRIPTION_EVENT_VERSIONS: Readonly<Record<string, number>> = { 'subscription.created': 2 };

export const SUBSCRIPTION_UPCASTERS: readonly Upcaster[] = [
  {
    type: 'subscription.created',
    from: 1,
    to: 2,
    up: ({ interval_count, ...data }) => ({ ...data, billing_interval: interval_count }),
  },
];
