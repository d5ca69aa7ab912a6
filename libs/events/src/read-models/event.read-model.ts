import type { ReadStore } from '#read-store/read-store.port.js';
import type { Doc } from '#projection-runtime/projection.js';

/** An event of the public `evt_` feed as the API shows it (GET /v1/events, webhooks). */
export interface PublicEvent {
  id: string;
  object: 'event';
  type: string;
  created: string;
  is_test: boolean;
  data: { object: Record<string, unknown> };
  request: { id: string | null; idempotency_key: string | null };
}

/**
 * Who caused an event, as the dashboard's timelines name it: the member of the team who acted in the
 * dashboard, the customer in the portal, or the CLI (from the event's `metadata.actor`; nothing else
 * of it, never a session). Absent for the API's callers and the service's own schedule.
 */
export interface EventActor {
  type: 'dashboard' | 'portal' | 'cli';
  member?: string;
}

/** A feed entry with who caused it: for the service's own pages (never in the API's output nor webhooks). */
export type EventWithActor = PublicEvent & { actor: EventActor | null };

export interface FeedEntry extends PublicEvent, Doc {
  _account: string;
  /** Global position: the feed's order. */
  _seq: string;
  _object_id: string;
  _type_prefix: string;
  _subscription: string | null;
  /** The customer the object is or belongs to (entries written before this field have none). */
  _customer?: string | null;
  /** Who caused the event (entries written before this field have none). */
  _actor?: EventActor | null;
}

/** The read model of the public `evt_` feed: one entry per public event, in global order (`_seq`). */
export const FEED_COLLECTION = 'events';

/**
 * The projections that write feed entries: every public resource's (projections/public-resources.ts;
 * projections/event-feed.spec.ts keeps the two lists equal).
 */
export const FEED_WRITERS: readonly string[] = [
  'products',
  'prices',
  'customers',
  'payment_methods',
  'subscriptions',
  'collections',
  'transactions',
  'charges',
  'test_clocks',
  'coupons',
  'checkout_sessions',
  'payment_links',
  'storefronts',
  'webhook_endpoints',
  'invoices',
  'credit_notes',
];

/**
 * How far the feed is complete: the lowest checkpoint of the projections that write its entries
 * (null while one has none). Each writes its own events' entries, so past one that lags (retrying,
 * parked, rebuilt alone) the feed may lack entries that will come: whoever pages the feed in order
 * (`GET /v1/events`, the webhook followers) stops at the horizon, so an entry never appears behind
 * a cursor that has already passed its position.
 */
export async function feedHorizon(store: Pick<ReadStore, 'getCheckpoint'>): Promise<string | null> {
  let horizon: string | null = null;
  for (const name of FEED_WRITERS) {
    const checkpoint = await store.getCheckpoint(name);
    if (checkpoint === null) return null;
    if (horizon === null || checkpoint < horizon) horizon = checkpoint;
  }
  return horizon;
}

/** Entries in feed order, cut at the horizon (those past it are read again once it has moved). */
export function withinHorizon<T extends { _seq: string }>(entries: T[], horizon: string | null): T[] {
  if (horizon === null) return [];
  let end = entries.length;
  while (end > 0 && entries[end - 1]._seq > horizon) end--;
  return end === entries.length ? entries : entries.slice(0, end);
}
