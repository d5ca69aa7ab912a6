import type { RecordedEvent } from '../libs/event-store/src/event-store.port.js';
import { eventIdFromUuid } from '../libs/shared/src/ids.js';
import { publicResourceProjections } from './public-resources.js';
import { type Doc, type Projection, toPublic } from './runtime/projection.js';

/** A stream's category: `product-prod_123` → `product`. */
export function categoryOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}

export interface PublicEvent {
  id: string;
  object: 'event';
  type: string;
  created: string;
  is_test: boolean;
  data: { object: Record<string, unknown> };
  request: { id: string | null; idempotency_key: string | null };
}

export interface FeedEntry extends PublicEvent, Doc {
  _account: string;
  /** Global position: the feed's order. */
  _seq: string;
  _object_id: string;
  _type_prefix: string;
  _subscription: string | null;
  /** The customer the object is or belongs to (entries written before this field have none). */
  _customer?: string | null;
}

const RESOURCE_PROJECTIONS = publicResourceProjections();

/** Public resources by `object` name: the prefix of the event types they are the subject of. */
const BY_OBJECT = new Map(RESOURCE_PROJECTIONS.map((p) => [p.object ?? p.category!, p]));

/** The resource an event is about (`charge.paid` → charges), if it is a public resource. */
const subjectOf = (event: RecordedEvent): Projection | undefined => BY_OBJECT.get(event.type.slice(0, event.type.indexOf('.')));

/** Every public object an event changes, with the projection that renders each (ids carry their prefix, so never clash). */
const touchedCache = new WeakMap<RecordedEvent, Map<string, Projection>>();
function touched(event: RecordedEvent): Map<string, Projection> {
  let map = touchedCache.get(event);
  if (!map) {
    map = new Map();
    if (event.metadata.account_id && event.metadata.mode && subjectOf(event)) {
      for (const p of RESOURCE_PROJECTIONS) for (const id of p.documentIds(event)) if (!map.has(id)) map.set(id, p);
    }
    touchedCache.set(event, map);
  }
  return map;
}

/** The id of the object an event is about: the first document its subject projection names. */
const objectIdOf = (event: RecordedEvent): string | undefined => subjectOf(event)?.documentIds(event)[0];

/** The subscription an object belongs to (itself for a subscription), for `GET /v1/subscriptions/{id}/history`. */
function subscriptionOf(object: Record<string, unknown> | null): string | null {
  if (!object) return null;
  if (object.object === 'subscription') return String(object.id);
  return typeof object.subscription === 'string' ? object.subscription : null;
}

/** The customer an object is or belongs to, for `GET /v1/events?customer=`. */
function customerOf(object: Record<string, unknown> | null): string | null {
  if (!object) return null;
  if (object.object === 'customer') return String(object.id);
  return typeof object.customer === 'string' ? object.customer : null;
}

/**
 * The public `evt_` feed. Keeps its own copy of every public object (collection `event_objects`,
 * projected by the same pure functions as the resource read models) so that each entry carries
 * `data.object` exactly as the object stood right after that event.
 */
export const eventFeedProjection: Projection = {
  name: 'event_feed',
  collection: 'event_objects',
  collections: [
    { name: 'event_objects', indexes: [] },
    {
      name: 'events',
      indexes: [
        { fields: ['_account', 'is_test', '_seq'] },
        { fields: ['_account', 'is_test', 'type', '_seq'] },
        { fields: ['_account', 'is_test', '_type_prefix', '_seq'] },
        { fields: ['_account', 'is_test', '_object_id', '_seq'] },
        // Entries without a subscription (or customer) are never asked for by one: not indexed.
        { fields: ['_account', 'is_test', '_subscription', '_seq'], sparseOn: '_subscription' },
        { fields: ['_account', 'is_test', '_customer', '_seq'], sparseOn: '_customer' },
      ],
    },
  ],
  documentIds: (event) => [...touched(event).keys()],
  project: (doc, event, id) => touched(event).get(id)!.project(doc, event, id),
  derive(event, after, before) {
    // Every touched object's copy is kept current; the feed entry is written once, for the subject.
    const subjectId = objectIdOf(event);
    const state = after ?? before;
    if (subjectId === undefined || (state ? state.id !== subjectId : true)) return [];
    const object = toPublic(state!);
    if (state?._deleted) (object as Record<string, unknown>).deleted = true;
    const entry: FeedEntry = {
      id: eventIdFromUuid(event.id),
      object: 'event',
      type: event.type,
      created: event.metadata.occurred_at,
      is_test: event.metadata.mode === 'test',
      data: { object },
      request: { id: event.metadata.request_id ?? null, idempotency_key: event.metadata.idempotency_key ?? null },
      _account: String(event.metadata.account_id),
      _seq: event.position,
      _object_id: subjectId,
      _type_prefix: event.type.split('.')[0],
      _subscription: subscriptionOf(state),
      _customer: customerOf(state),
    };
    return [{ collection: 'events', id: entry.id, doc: entry }];
  },
};
