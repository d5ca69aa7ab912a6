import type { RecordedEvent } from '#event-store/event-store.port.js';
import type { CollectionSpec, DocumentWrite } from '#read-store/read-store.port.js';
import { eventIdFromUuid } from '#shared/ids.js';
import { type Doc, type Projection, toPublic } from '#projection-runtime/projection.js';
import { type EventActor, FEED_COLLECTION, type FeedEntry } from '#events/read-models/event.read-model.js';

/** A stream's category: `product-prod_123` → `product`. */
export function categoryOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}

/** The feed's collection, shared by every public resource projection (each writes its own events' entries). */
export const feedCollection: CollectionSpec = {
  name: FEED_COLLECTION,
  indexes: [
    { fields: ['_account', 'is_test', '_seq'] },
    { fields: ['_account', 'is_test', 'type', '_seq'] },
    { fields: ['_account', 'is_test', '_type_prefix', '_seq'] },
    { fields: ['_account', 'is_test', '_object_id', '_seq'] },
    // Entries without a subscription (or customer) are never asked for by one: not indexed.
    { fields: ['_account', 'is_test', '_subscription', '_seq'], sparseOn: '_subscription' },
    { fields: ['_account', 'is_test', '_customer', '_seq'], sparseOn: '_customer' },
  ],
};

/** The subscription an object belongs to (itself for a subscription), for `GET /v1/subscriptions/{id}/history`. */
function subscriptionOf(object: Record<string, unknown>): string | null {
  if (object.object === 'subscription') return String(object.id);
  return typeof object.subscription === 'string' ? object.subscription : null;
}

/** The customer an object is or belongs to, for `GET /v1/events?customer=`. */
function customerOf(object: Record<string, unknown>): string | null {
  if (object.object === 'customer') return String(object.id);
  return typeof object.customer === 'string' ? object.customer : null;
}

/** Who caused the event, from its metadata: the actor's kind and the member, nothing else (never a session). */
function actorOf(metadata: RecordedEvent['metadata']): EventActor | null {
  const actor = metadata.actor as { type?: unknown; member?: unknown } | undefined | null;
  if (!actor || (actor.type !== 'dashboard' && actor.type !== 'portal' && actor.type !== 'cli')) return null;
  return typeof actor.member === 'string' ? { type: actor.type, member: actor.member } : { type: actor.type };
}

/** The feed entry of `event`, whose subject (`data.object`) stood as `state` right after it. */
function feedEntry(event: RecordedEvent, subjectId: string, state: Doc): FeedEntry {
  const object = toPublic(state);
  if (state._deleted) (object as Record<string, unknown>).deleted = true;
  return {
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
    _type_prefix: event.type.slice(0, event.type.indexOf('.')),
    _subscription: subscriptionOf(state),
    _customer: customerOf(state),
    _actor: actorOf(event.metadata),
  };
}

/**
 * A public resource projection that also writes the feed entry of each event it is the subject of
 * (the resource whose `object` name is the event type's prefix: `charge.paid` → the charges
 * projection), with `data.object` as its own document stood right after the event. The entry is
 * written in the same commit as the document, by the same projection: the feed keeps no copy of
 * the objects, and an entry is never there before its object is. The projection's methods are
 * looked up on each call (a test may replace one).
 */
export function withFeedEntries(resource: Projection): Projection {
  const object = resource.object ?? resource.category!;
  const subjectId = (event: RecordedEvent): string | undefined => {
    const dot = event.type.indexOf('.');
    if (dot !== object.length || !event.type.startsWith(object) || !event.metadata.account_id || !event.metadata.mode) return undefined;
    return resource.documentIds(event)[0];
  };
  return {
    name: resource.name,
    category: resource.category,
    object: resource.object,
    collection: resource.collection,
    collections: [...resource.collections, feedCollection],
    documentIds: (event) => resource.documentIds(event),
    project: (doc, event, id) => resource.project(doc, event, id),
    derive(event, after, before): DocumentWrite[] {
      const own = resource.derive ? resource.derive(event, after, before) : [];
      const state = after ?? before;
      if (!state) return own;
      const subject = subjectId(event);
      if (subject === undefined || state.id !== subject) return own;
      const entry = feedEntry(event, subject, state);
      return [...own, { collection: FEED_COLLECTION, id: entry.id, doc: entry }];
    },
  };
}

