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
}

/** Public stream categories and the resource projection that renders each (built once, read per event). */
const RESOURCES = new Map(publicResourceProjections().map((p) => [p.category!, p]));

/** The resource projection that renders a stream category's objects, if the category is public. */
const resourceFor = (event: RecordedEvent): Projection | undefined => RESOURCES.get(categoryOf(event.streamId));

function isPublic(event: RecordedEvent): boolean {
  return Boolean(event.metadata.account_id && event.metadata.mode && resourceFor(event));
}

/** The object an event is about: its stream's aggregate. */
const objectIdOf = (event: RecordedEvent) => event.streamId.slice(categoryOf(event.streamId).length + 1);

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
      ],
    },
  ],
  documentIds: (event) => (isPublic(event) ? [objectIdOf(event)] : []),
  project: (doc, event, id) => resourceFor(event)!.project(doc, event, id),
  derive(event, after, before) {
    const state = after ?? before;
    const object = state ? toPublic(state) : { id: objectIdOf(event) };
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
      _object_id: objectIdOf(event),
      _type_prefix: event.type.split('.')[0],
    };
    return [{ collection: 'events', id: entry.id, doc: entry }];
  },
};
