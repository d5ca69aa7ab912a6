import { Inject, Injectable } from '@nestjs/common';
import type { CollectionSpec, DocumentWrite, Fence, ReadStore, Scalar } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import { randomBase62 } from '#shared/ids.js';
import type { FeedEntry } from '#events/read-models/event.read-model.js';
import { type DeliveryEvent, type DeliveryState, deliveryDecider } from '../domain/delivery.decider.js';
import type { WebhookResponse } from './webhook-sender.js';
import { REPLAY_COLLECTION, REPLAY_PROGRESS, type ReplayProgressDoc } from '../read-models/webhook-replay.read-model.js';

/** One event's delivery to one endpoint: the scheduling state (delivery decider) and where it is in the feed. */
export interface DeliveryDoc extends DeliveryState {
  id: string;
  _endpoint: string;
  event: string;
  event_type: string;
  /** The event's feed position (its order), and the object it is about (per-object ordering). */
  _seq: string;
  _object_id: string;
  /** The event's `created` (its clock time): "every failed event since" selects by it. */
  _event_created: string;
  /** Wall-clock time of the last change: retention of finished deliveries. */
  _updated: string;
  /** Sent by this replay (`whr_…`): a delivery of its own beside the live one, id `<endpoint>:<seq>:<replay>`. */
  _replay?: string;
}

/** One attempt, as the delivery log lists it. */
export interface AttemptDoc {
  id: string;
  object: 'webhook_delivery_attempt';
  webhook_endpoint: string;
  event: string;
  event_type: string;
  attempt: number;
  created: string;
  status: 'succeeded' | 'failed';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_body: string | null;
  next_attempt_at: string | null;
  /** The replay (`whr_…`) this attempt was sent by; absent for live deliveries and re-sends. */
  replay?: string;
  _endpoint: string;
  _created: string;
}

/** Where an endpoint's follower is in the feed: the last feed entry it turned into deliveries. */
export interface CursorDoc {
  id: string;
  seq: string;
  event: string;
}

export const DELIVERY_COLLECTIONS: CollectionSpec[] = [
  {
    name: 'webhook_deliveries',
    indexes: [
      { fields: ['_endpoint', 'status', 'next_attempt_at'] },
      { fields: ['_endpoint', 'status', '_event_created'] },
      { fields: ['status', '_updated'] },
    ],
  },
  { name: 'webhook_attempts', indexes: [{ fields: ['_endpoint', '_created'] }, { fields: ['_endpoint', 'event', '_created'] }, { fields: ['_created'] }] },
  { name: 'webhook_cursors', indexes: [] },
  { name: REPLAY_PROGRESS, indexes: [] },
  REPLAY_COLLECTION,
];

export const deliveryId = (endpointId: string, seq: string) => `${endpointId}:${seq}`;
/** A replay's delivery of an event: apart from the live one (whose state it must not reset). */
export const replayDeliveryId = (endpointId: string, seq: string, replayId: string) => `${endpointId}:${seq}:${replayId}`;

export function applyDelivery(doc: DeliveryDoc, events: DeliveryEvent[], now: Date): DeliveryDoc {
  const state = events.reduce<DeliveryState>((s, e) => deliveryDecider.evolve(s, e), doc);
  return { ...doc, ...state, _updated: now.toISOString() };
}

type DeliveredEntry = Pick<FeedEntry, 'id' | 'type' | '_seq' | '_object_id' | 'created'>;

/** A feed entry's delivery to an endpoint before any decision (live, or a replay's: `replay` names it and keeps it apart). */
export function blankDelivery(endpointId: string, entry: DeliveredEntry, now: Date, replay?: string): DeliveryDoc {
  return {
    ...deliveryDecider.initialState,
    id: replay ? replayDeliveryId(endpointId, entry._seq, replay) : deliveryId(endpointId, entry._seq),
    _endpoint: endpointId,
    event: entry.id,
    event_type: entry.type,
    _seq: entry._seq,
    _object_id: entry._object_id,
    _event_created: entry.created,
    _updated: now.toISOString(),
    ...(replay ? { _replay: replay } : {}),
  };
}

/** A feed entry queued for delivery to an endpoint (live, or as a replay's). */
export function queuedDelivery(endpointId: string, entry: DeliveredEntry, now: Date, replay?: string): DeliveryDoc {
  const blank = blankDelivery(endpointId, entry, now, replay);
  return applyDelivery(blank, deliveryDecider.decide({ type: 'QueueDelivery', now }, blank), now);
}

/**
 * The delivery state of every endpoint, kept behind the ReadStore port (embedded SQLite, or
 * MongoDB in production) in three collections of its own: each endpoint's cursor in the feed, one
 * document per (endpoint, event) with its scheduling state, and the attempt log. A cursor moves in
 * the same commit as the deliveries it queued, so a restart neither skips nor queues twice.
 */
@Injectable()
export class DeliveryLog {
  constructor(@Inject(READ_STORE) readonly store: ReadStore) {}

  init(): Promise<void> {
    return this.store.ensureCollections(DELIVERY_COLLECTIONS);
  }

  cursor(endpointId: string): Promise<CursorDoc | null> {
    return this.store.get<CursorDoc>('webhook_cursors', endpointId);
  }

  /** Queues deliveries and moves the cursor, together (with `fence`: only while that lease is held). */
  queue(deliveries: DeliveryDoc[], cursor: CursorDoc, fence?: Fence): Promise<void> {
    const writes: DocumentWrite[] = deliveries.map((d) => ({ collection: 'webhook_deliveries', id: d.id, doc: d as unknown as Record<string, unknown> }));
    writes.push({ collection: 'webhook_cursors', id: cursor.id, doc: cursor as unknown as Record<string, unknown> });
    return this.store.commit(writes, undefined, fence);
  }

  /** The endpoint's pending deliveries, soonest first (ties in feed order). */
  pending(endpointId: string, limit: number): Promise<DeliveryDoc[]> {
    return this.store.find<DeliveryDoc>('webhook_deliveries', {
      where: { _endpoint: endpointId, status: 'pending' },
      orderBy: { field: 'next_attempt_at', direction: 'asc' },
      limit,
    });
  }

  get(endpointId: string, seq: string): Promise<DeliveryDoc | null> {
    return this.store.get<DeliveryDoc>('webhook_deliveries', deliveryId(endpointId, seq));
  }

  save(delivery: DeliveryDoc): Promise<void> {
    return this.store.commit([{ collection: 'webhook_deliveries', id: delivery.id, doc: delivery as unknown as Record<string, unknown> }]);
  }

  private batch: { writes: DocumentWrite[]; done: Promise<void> } | null = null;

  /**
   * The attempt's outcome and the delivery's next state, in one commit, shared with every other
   * attempt that ended in the same event-loop turn (a group commit: one transaction for many
   * attempts). Resolves once committed, so an attempt is never reported done before it is durable.
   */
  recordAttempt(delivery: DeliveryDoc, response: WebhookResponse, at: Date): Promise<void> {
    const attempt: AttemptDoc = {
      id: `wha_${randomBase62(24)}`,
      object: 'webhook_delivery_attempt',
      webhook_endpoint: delivery._endpoint,
      event: delivery.event,
      event_type: delivery.event_type,
      attempt: delivery.attempts,
      created: at.toISOString(),
      status: response.ok ? 'succeeded' : 'failed',
      status_code: response.status_code,
      error: response.error,
      duration_ms: response.duration_ms,
      response_body: response.response_body,
      next_attempt_at: delivery.status === 'pending' ? delivery.next_attempt_at : null,
      ...(delivery._replay ? { replay: delivery._replay } : {}),
      _endpoint: delivery._endpoint,
      _created: at.toISOString(),
    };
    if (!this.batch) {
      const writes: DocumentWrite[] = [];
      const done = new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          this.batch = null;
          this.store.commit(writes).then(resolve, reject);
        }),
      );
      this.batch = { writes, done };
    }
    this.batch.writes.push(
      { collection: 'webhook_deliveries', id: delivery.id, doc: delivery as unknown as Record<string, unknown> },
      { collection: 'webhook_attempts', id: attempt.id, doc: attempt as unknown as Record<string, unknown> },
    );
    return this.batch.done;
  }

  replayProgress(replayId: string): Promise<ReplayProgressDoc | null> {
    return this.store.get<ReplayProgressDoc>(REPLAY_PROGRESS, replayId);
  }

  /** A replay's checkpoint (with `fence`: only while its endpoint's lease is held). */
  saveReplayProgress(progress: ReplayProgressDoc, fence?: Fence): Promise<void> {
    return this.store.commit([{ collection: REPLAY_PROGRESS, id: progress.id, doc: progress as unknown as Record<string, unknown> }], undefined, fence);
  }

  attempts(endpointId: string, query: { limit: number; after?: { value: Scalar; id: string }; event?: string }): Promise<AttemptDoc[]> {
    const where: Record<string, Scalar> = { _endpoint: endpointId };
    if (query.event) where.event = query.event;
    return this.store.find<AttemptDoc>('webhook_attempts', { where, orderBy: { field: '_created', direction: 'desc' }, after: query.after, limit: query.limit });
  }

  /** Failed deliveries of an endpoint whose event was created at or after `since`, oldest first. */
  async failedSince(endpointId: string, since: string, limit: number): Promise<DeliveryDoc[]> {
    const rows = await this.store.find<DeliveryDoc>('webhook_deliveries', {
      where: { _endpoint: endpointId, status: 'failed' },
      orderBy: { field: '_event_created', direction: 'desc' },
      limit,
    });
    return rows.filter((r) => r._event_created >= since).reverse();
  }

  /** Deletes attempts, and finished deliveries, older than `cutoff`; returns how many went. */
  async prune(cutoff: Date, batch = 500): Promise<number> {
    const before = cutoff.toISOString();
    let removed = 0;
    for (;;) {
      const old = (await this.store.find<AttemptDoc>('webhook_attempts', { orderBy: { field: '_created', direction: 'asc' }, limit: batch })).filter((a) => a._created < before);
      const done = (
        await this.store.find<DeliveryDoc>('webhook_deliveries', { where: { status: ['succeeded', 'failed'] }, orderBy: { field: '_updated', direction: 'asc' }, limit: batch })
      ).filter((d) => d._updated < before);
      if (old.length === 0 && done.length === 0) return removed;
      await this.store.commit([
        ...old.map((a) => ({ collection: 'webhook_attempts', id: a.id, doc: null })),
        ...done.map((d) => ({ collection: 'webhook_deliveries', id: d.id, doc: null })),
      ]);
      removed += old.length + done.length;
    }
  }
}
