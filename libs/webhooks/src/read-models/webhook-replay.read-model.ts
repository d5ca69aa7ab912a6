import type { OwnedDoc } from '#platform/read-models.js';
import type { CollectionSpec } from '#read-store/read-store.port.js';
import { TENANT_INDEXES } from '#platform/owned-doc.js';
import type { ReplayStatus } from '../domain/webhook-replay.decider.js';

/** The read model of replays (projections/webhook-replays.projection.ts). */
export const REPLAYS = 'webhook_replays';
/** Each replay's progress, written by the replay worker (operational, beside the delivery log). */
export const REPLAY_PROGRESS = 'webhook_replay_progress';
/** The replays' read model (the projection's, also ensured by the delivery worker that reads it). */
export const REPLAY_COLLECTION: CollectionSpec = { name: REPLAYS, indexes: [...TENANT_INDEXES, { fields: ['_endpoint', '_created'] }, { fields: ['status', '_created'] }] };

/** A replay as the `webhook_replays` read model holds it (its progress is kept apart: `ReplayProgressDoc`). */
export type WebhookReplayDoc = OwnedDoc & {
  object: 'webhook_replay';
  endpoint: string;
  /** As given: `evt_…` or an ISO time. */
  from: string;
  to: string | null;
  types: string[];
  status: ReplayStatus;
  created: string;
  created_date: string;
  completed_at: string | null;
  canceled_at: string | null;
  _endpoint: string;
  /** Exclusive start in the feed (an `evt_`'s position), or null (from a time: the account's first event). */
  _from_seq: string | null;
  _from_event: string | null;
  _from_time: string | null;
  _to_seq: string | null;
  _to_time: string | null;
  /** The position of `webhook_replay.created`: the replay re-sends what the feed held then (later events go out live). */
  _until_seq: string;
  /** `delivered` as the completion recorded it. */
  _delivered: number | null;
};

/** Where a replay is: the last feed entry it has gone past, and how many events it has sent. */
export interface ReplayProgressDoc {
  id: string;
  seq: string;
  event: string | null;
  delivered: number;
}

/** A replay as the API serves it: its read model and its progress. */
export function publicReplay(doc: WebhookReplayDoc, progress: ReplayProgressDoc | null): Record<string, unknown> {
  return {
    id: doc.id,
    object: 'webhook_replay',
    endpoint: doc.endpoint,
    from: doc.from,
    to: doc.to,
    types: doc.types,
    status: doc.status,
    delivered: progress?.delivered ?? doc._delivered ?? 0,
    cursor: progress?.event ?? null,
    created: doc.created,
    created_date: doc.created_date,
    completed_at: doc.completed_at,
    canceled_at: doc.canceled_at,
    is_test: doc.is_test,
  };
}
