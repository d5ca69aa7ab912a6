import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { type Checkpoint, type DocumentWrite, type Fence, FencedError, type ReadStore } from '#read-store/read-store.port.js';
import { APPLIED_AT, type Doc, type Projection } from './projection.js';
import { isStoreUnavailable } from '#shared/store-unavailable.js';
import { PositionWaiters } from './position-waiters.js';

/** Where a parked projection's reason is kept (one document per parked projection, `id` = its name). */
export const PROJECTION_STATUS = 'projection_status';

/** What the pipeline reads the events from: an event store, or (in its own thread) one woken by the main thread. */
export type PipelineSource = Pick<EventStore, 'readAll' | 'onAppended'>;

/** Why a projection stopped: the event it could not get past, and the error. */
export interface ParkedProjection {
  id: string;
  parked_at: string;
  position: string;
  event_id: string;
  event_type: string;
  stream_id: string;
  error: string;
  attempts: number;
}

export interface PipelineOptions {
  /** Events read (and parsed) once per batch, for every projection. */
  batchSize?: number;
  /** How often an idle pipeline looks for events appended by other processes. */
  pollMs?: number;
  /** A failing projection is retried this many times (with doubling waits from `backoffMs`), then parked. */
  retries?: number;
  backoffMs?: number;
  /**
   * After a batch that found events (fewer than a full batch), wait this long before reading again,
   * so that under a steady stream of appends each read and commit takes more events; an idle
   * pipeline is woken at once by an append either way. Not while a request waits (`waitFor`) for a
   * position already appended: the pause would only add to its wait. Default 2 ms.
   */
  coalesceMs?: number;
  /** Where failures are reported (console.error by default). */
  log?: (message: string, error?: unknown) => void;
}

/** What one projection has done in one batch. */
interface Outcome {
  writes: DocumentWrite[];
  /** The position its checkpoint moves to (the last event it got past), or null. */
  checkpoint: string | null;
  failure: { event: RecordedEvent; error: unknown } | null;
  /** The first event it was given (blamed when the store refuses its writes). */
  first: RecordedEvent;
}

/** Per collection: the documents of batches projected but not committed yet, with the batch's number. */
type Overlay = Map<string, Map<string, { doc: Doc | null; seq: number }>>;

/** An event with one document has no others. */
const NO_RELATED: Map<string, { before: Doc | null; after: Doc | null }> = new Map();

/** Each projection's writes of its own documents (not derived ones, such as feed entries), added to `into` (by collection, then id) with `seq`. */
function ownDocuments(outcomes: Map<Lane, Outcome>, seq: number, into: Overlay = new Map()): Overlay {
  for (const [lane, o] of outcomes) {
    for (const w of o.writes) {
      if (w.position === undefined || w.collection !== lane.projection.collection) continue;
      let docs = into.get(w.collection);
      if (!docs) into.set(w.collection, (docs = new Map()));
      docs.set(w.id, { doc: w.doc as Doc | null, seq });
    }
  }
  return into;
}

interface Lane {
  projection: Projection;
  checkpoint: string | null;
  failures: number;
  /** Not retried before this time (ms) after a failure. */
  retryAt: number;
  parked: ParkedProjection | null;
}

export { ProjectionParkedError } from './position-waiters.js';

/**
 * The one projection pipeline: reads the global order once per batch (each event parsed once),
 * hands the batch to every projection, and commits every projection's document writes together with
 * every checkpoint in one read-store commit (one transaction on SQLite).
 *
 * Each projection has its own checkpoint, so one may lag (after a rebuild, a failure) while the
 * others go on: a batch is read from the lowest checkpoint among the projections that may run, and
 * each skips what it has already applied. Idempotent under redelivery: an event at or before a
 * document's `_position` is skipped.
 *
 * Poison: a projection that throws on an event keeps what it did before that event (its checkpoint
 * stops just before it), is retried `retries` times with doubling waits, and is then parked: it
 * stops, the reason is written to `projection_status` (shown by /health and `projections status`),
 * and read-your-writes waits that need it fail at once with ProjectionParkedError. The other
 * projections go on. `projections resume NAME` or a rebuild un-parks it.
 */
export class ProjectionPipeline {
  private readonly lanes: Lane[];
  private stopped = true;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly waiters = new PositionWaiters(() => this.lanes);
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly coalesceMs: number;
  private readonly log: (message: string, error?: unknown) => void;
  private lastLoopError: unknown = null;
  private lastStatusRead = 0;
  /**
   * The lease the pipeline runs under (libs/platform/src/leases.ts), carried by every commit of the
   * documents and checkpoints: once another worker holds the projections at a later epoch, the store
   * refuses them (FencedError) and the live loop stops. Null: unfenced (tests, a rebuild).
   */
  fence: Fence | null = null;

  constructor(
    readonly projections: Projection[],
    private readonly events: PipelineSource,
    private readonly store: ReadStore,
    options: PipelineOptions = {},
  ) {
    this.lanes = projections.map((projection) => ({ projection, checkpoint: null, failures: 0, retryAt: 0, parked: null }));
    this.batchSize = options.batchSize ?? 1000;
    this.pollMs = options.pollMs ?? 100;
    this.retries = options.retries ?? 4;
    this.backoffMs = options.backoffMs ?? 100;
    this.coalesceMs = options.coalesceMs ?? 2;
    this.log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  }

  /**
   * The documents the last live batch (`step`) committed, each projection's own, which the next
   * batch takes as they are instead of reading them back (a renewal's collection, charge and
   * transaction are created in one batch and changed in the next). Only the last batch's, kept only
   * when it committed whole (every projection, no failure); dropped by `init` (a restart, the end of
   * a rebuild). This process's pipeline is the only writer of its collections (a rebuild from
   * another process needs the projectors stopped), so a kept document is the stored one.
   */
  private committed: Overlay = new Map();
  /** Bumped by `init`: a batch that began before it keeps nothing. */
  private generation = 0;

  async init(): Promise<void> {
    this.generation += 1;
    this.committed = new Map();
    // A collection several projections write (the feed's) is named by each: ensured once.
    const collections = new Map(this.projections.flatMap((p) => p.collections).map((c) => [c.name, c]));
    await this.store.ensureCollections([{ name: PROJECTION_STATUS, indexes: [] }, ...collections.values()]);
    for (const lane of this.lanes) {
      lane.checkpoint = await this.store.getCheckpoint(lane.projection.name);
      lane.failures = 0;
      lane.retryAt = 0;
    }
    await this.readParked();
  }

  private readonly batchListeners = new Set<(events: RecordedEvent[]) => void>();

  /**
   * ForeignWriteSource (AggregateExecutor.watchForeignWrites): every batch read is shown to
   * `listener` before it is applied; `watching` while the pipeline follows the store with a
   * projection that can run.
   */
  onBatch(listener: (events: RecordedEvent[]) => void): () => void {
    this.batchListeners.add(listener);
    return () => this.batchListeners.delete(listener);
  }

  private readonly progressListeners = new Set<() => void>();

  /** `listener` hears every change of the checkpoints or the parked projections (after each commit, parking, resume). */
  onProgress(listener: () => void): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  watching(): boolean {
    return !this.stopped && this.lanes.some((l) => !l.parked);
  }

  /** Each projection's checkpoint as this process knows it. */
  checkpoints(): Map<string, string | null> {
    return new Map(this.lanes.map((l) => [l.projection.name, l.checkpoint]));
  }

  parked(): ParkedProjection[] {
    return this.lanes.flatMap((l) => (l.parked ? [l.parked] : []));
  }

  /**
   * Processes everything up to the head of the store (waiting out the retries of a failing
   * projection, which ends parked); returns how many events were read. Pipelined: while one batch
   * commits (in the store's writer thread, or over the network), the next is read and projected on
   * top of it (see `pass`).
   */
  async catchUp(): Promise<number> {
    let total = 0;
    for (;;) {
      const { read, atHead } = await this.pass();
      total += read;
      if (!atHead) continue;
      const retry = this.nextRetry();
      if (retry === null) return total;
      await new Promise((r) => setTimeout(r, Math.max(0, retry - Date.now())));
    }
  }

  /** One batch: read once, every runnable projection applies it, one commit. Returns the events read. */
  async step(): Promise<number> {
    const now = Date.now();
    const runnable = this.lanes.filter((l) => !l.parked && l.retryAt <= now);
    if (runnable.length === 0) return 0;
    let from = runnable[0].checkpoint;
    for (const l of runnable) if (l.checkpoint === null || (from !== null && l.checkpoint < from)) from = l.checkpoint;
    const batch = await this.events.readAll({ after: from, maxCount: this.batchSize });
    if (batch.length === 0) return 0;
    for (const listener of this.batchListeners) listener(batch);
    // The last batch's documents are taken as committed; they are kept again only if this one commits whole.
    const generation = this.generation;
    const recent = this.committed;
    this.committed = new Map();
    const outcomes = await this.projectAll(batch, runnable, (l) => l.checkpoint, recent);
    const whole = await this.settle(outcomes, this.commit(outcomes));
    if (whole && generation === this.generation) this.committed = ownDocuments(outcomes, 0);
    return batch.length;
  }

  /** Applies one batch (global order) to the given projections (default: every runnable one) and commits once. */
  async apply(batch: RecordedEvent[], lanes: Lane[] = this.lanes.filter((l) => !l.parked)): Promise<void> {
    this.committed = new Map();
    const outcomes = await this.projectAll(batch, lanes, (l) => l.checkpoint);
    await this.settle(outcomes, this.commit(outcomes));
  }

  /**
   * Batches one after another with at most one commit in flight: batch N+1 is read and projected
   * while batch N commits. The documents of a batch not yet committed are read from memory (the
   * `ahead` overlay) so that N+1 projects on top of N; its commit is sent only once N's has landed
   * whole. Should N's commit fail (or one of its projections fail, which drains the pipeline at
   * once), N+1's projection is dropped unsent and projected again from the committed checkpoints,
   * so the guarantees are those of one batch at a time: each checkpoint commits with its documents,
   * a failure reports its own error, and a restart resumes from what was committed.
   * `atHead`: the last read found nothing (false: stopped early to settle a failure).
   */
  private async pass(): Promise<{ read: number; atHead: boolean }> {
    let read = 0;
    let inFlight: { outcomes: Map<Lane, Outcome>; committing: Promise<Set<Lane>>; seq: number } | null = null;
    /** How far each lane has projected beyond its committed checkpoint (batches not yet committed). */
    const projected = new Map<Lane, string | null>();
    const position = (l: Lane) => (projected.has(l) ? projected.get(l)! : l.checkpoint);
    const overlay: Overlay = new Map();
    let seq = 0;
    /** Waits for the commit in flight; true when every projection in it committed without a failure. */
    const land = async (): Promise<boolean> => {
      const sent = inFlight!;
      inFlight = null;
      const whole = await this.settle(sent.outcomes, sent.committing);
      if (!whole) {
        projected.clear();
        overlay.clear();
      } else {
        for (const docs of overlay.values()) for (const [id, entry] of docs) if (entry.seq <= sent.seq) docs.delete(id);
      }
      return whole;
    };
    try {
      for (;;) {
        const now = Date.now();
        const runnable = this.lanes.filter((l) => !l.parked && l.retryAt <= now);
        // At the head (or nothing may run): the commit in flight lands before the pass ends.
        if (runnable.length === 0) return { read, atHead: inFlight ? await land() : true };
        let from = position(runnable[0]);
        for (const l of runnable) {
          const at = position(l);
          if (at === null || (from !== null && at < from)) from = at;
        }
        const batch = await this.events.readAll({ after: from, maxCount: this.batchSize });
        if (batch.length === 0) return { read, atHead: inFlight ? await land() : true };
        read += batch.length;
        for (const listener of this.batchListeners) listener(batch);
        const outcomes = await this.projectAll(batch, runnable, position, overlay);
        // The batch was projected on top of the one in flight: it may be sent only once that one has landed whole.
        if (inFlight && !(await land())) return { read, atHead: false };
        seq += 1;
        let failed = false;
        for (const [lane, o] of outcomes) {
          if (o.checkpoint !== null) projected.set(lane, o.checkpoint);
          if (o.failure) failed = true;
        }
        ownDocuments(outcomes, seq, overlay);
        const committing = this.commit(outcomes);
        committing.catch(() => undefined); // awaited by land(); handled here so a failure while the next batch projects is not "unhandled"
        inFlight = { outcomes, committing, seq };
        // A projection failed in this batch: settle it now (its retry time, or its parking) before going on.
        if (failed) {
          await land();
          return { read, atHead: false };
        }
      }
    } finally {
      // Only when an error (reading, projecting) stopped the pass: the commit in flight still finishes
      // and is recorded; the error that stopped the pass is the one reported.
      if (inFlight) {
        const sent: { outcomes: Map<Lane, Outcome>; committing: Promise<Set<Lane>> } = inFlight;
        await this.settle(sent.outcomes, sent.committing).catch(() => undefined);
      }
    }
  }

  /** Every lane's pure projection of its pending events in the batch (nothing written). */
  private async projectAll(batch: RecordedEvent[], lanes: Lane[], position: (l: Lane) => string | null, overlay?: Overlay): Promise<Map<Lane, Outcome>> {
    const outcomes = new Map<Lane, Outcome>();
    for (const lane of lanes) {
      const at = position(lane);
      // Usually the lane is at the batch's start (a rebuild, live): the whole batch, without comparing each position.
      const pending = at === null || at < batch[0].position ? batch : batch.filter((e) => e.position > at);
      if (pending.length === 0) continue;
      outcomes.set(lane, await this.project(lane.projection, pending, overlay?.get(lane.projection.collection)));
    }
    return outcomes;
  }

  /**
   * After a commit: the checkpoints of the projections that committed move, failures count (retry
   * or park), waiters are released. True when every projection committed and none failed.
   */
  private async settle(outcomes: Map<Lane, Outcome>, committing: Promise<Set<Lane>>): Promise<boolean> {
    const committed = await committing;
    let whole = true;
    for (const [lane, outcome] of outcomes) {
      if (committed.has(lane) && outcome.checkpoint !== null && (lane.checkpoint === null || outcome.checkpoint > lane.checkpoint)) {
        lane.checkpoint = outcome.checkpoint;
      }
      if (outcome.failure) {
        whole = false;
        await this.failed(lane, outcome.failure.event, outcome.failure.error);
      } else if (committed.has(lane)) lane.failures = 0;
      else whole = false;
    }
    this.release();
    return whole;
  }

  /**
   * All projections' writes and checkpoints in one commit. Should the store refuse it (a document it
   * cannot hold), each projection is committed on its own, so the one at fault fails alone.
   */
  private async commit(outcomes: Map<Lane, Outcome>): Promise<Set<Lane>> {
    const writes: DocumentWrite[] = [];
    const checkpoints: Checkpoint[] = [];
    for (const [lane, o] of outcomes) {
      writes.push(...o.writes);
      if (o.checkpoint !== null) checkpoints.push({ name: lane.projection.name, position: o.checkpoint });
    }
    if (writes.length === 0 && checkpoints.length === 0) return new Set(outcomes.keys());
    const fence = this.fence ?? undefined;
    try {
      await this.store.commit(writes, checkpoints, fence);
      return new Set(outcomes.keys());
    } catch (error) {
      // The store cannot take writes now (disk full, read-only): retry the whole batch later, and
      // never count it against a projection (parking needs an operator; space coming back does not).
      // Fenced: another worker holds the projections now; nothing of this batch is ours to write.
      if (isStoreUnavailable(error) || error instanceof FencedError) throw error;
      const ok = new Set<Lane>();
      for (const [lane, o] of outcomes) {
        if (o.checkpoint === null && o.writes.length === 0) continue;
        try {
          await this.store.commit(o.writes, o.checkpoint === null ? [] : [{ name: lane.projection.name, position: o.checkpoint }], fence);
          ok.add(lane);
        } catch (own) {
          if (isStoreUnavailable(own) || own instanceof FencedError) throw own;
          // Refused on its own: this projection's batch holds something the store cannot take.
          o.failure = { event: o.first, error: own };
        }
      }
      // Nothing went through: is the store down (retry everything later) or did each projection's batch fail on its own?
      if (ok.size === 0) await this.store.getCheckpoint(this.lanes[0].projection.name).catch(() => {
        throw error;
      });
      return ok;
    }
  }

  /**
   * One projection over its pending events: the pure projector, nothing written yet. Each document
   * is read once, kept in memory while the batch's events apply to it one after another, and
   * written once (with its last event's `_position`) however many of the batch's events touch it.
   */
  private async project(p: Projection, events: RecordedEvent[], ahead?: Map<string, { doc: Doc | null }>): Promise<Outcome> {
    const outcome: Outcome = { writes: [], checkpoint: null, failure: null, first: events[0] };
    // Only the events that concern this projection (most concern few); `at` is its index in `events`.
    const touched: { event: RecordedEvent; ids: string[]; at: number }[] = [];
    const distinct = new Set<string>();
    let end = events.length;
    for (let at = 0; at < events.length; at++) {
      const event = events[at];
      try {
        const ids = p.documentIds(event);
        if (ids.length > 0) {
          touched.push({ event, ids, at });
          for (const id of ids) distinct.add(id);
        }
      } catch (error) {
        outcome.failure = { event, error };
        end = at;
        break;
      }
    }
    const ids = [...distinct];
    // Documents a batch still committing wrote are taken from it; the others from the store.
    const stored = ahead?.size ? ids.filter((id) => !ahead.has(id)) : ids;
    const docs = stored.length ? await this.store.getMany<Doc>(p.collection, stored) : new Map<string, Doc>();
    const current = new Map<string, Doc | null>(ids.map((id) => [id, ahead?.has(id) ? ahead.get(id)!.doc : (docs.get(id) ?? null)]));
    const changed = new Map<string, string>();
    const derived: DocumentWrite[] = [];
    for (const { event, ids: eventIds, at } of touched) {
      try {
        const results: { id: string; after: Doc | null }[] = [];
        const eventDerived: DocumentWrite[] = [];
        const view = eventIds.length > 1 ? new Map<string, Doc | null>() : null;
        // The event's documents projected so far (before and after), for a projector that reads them.
        const related: Map<string, { before: Doc | null; after: Doc | null }> = eventIds.length > 1 ? new Map() : NO_RELATED;
        for (const id of eventIds) {
          const before = view?.has(id) ? view.get(id)! : (current.get(id) ?? null);
          if (before && typeof before[APPLIED_AT] === 'string' && (before[APPLIED_AT] as string) >= event.position) continue;
          const projected = p.project(before, event, id, related);
          const after = projected ? ({ ...projected, [APPLIED_AT]: event.position } as Doc) : null;
          view?.set(id, after);
          if (related !== NO_RELATED) related.set(id, { before, after });
          results.push({ id, after });
          if (p.derive) eventDerived.push(...p.derive(event, after, before, related));
        }
        for (const r of results) {
          current.set(r.id, r.after);
          changed.set(r.id, event.position);
        }
        for (const d of eventDerived) derived.push(d);
      } catch (error) {
        outcome.failure = { event, error };
        end = at;
        break;
      }
    }
    // The checkpoint passes every event before the first failure (those that do not concern it too).
    if (end > 0) outcome.checkpoint = events[end - 1].position;
    for (const [id, position] of changed) outcome.writes.push({ collection: p.collection, id, doc: current.get(id) ?? null, position });
    for (const d of derived) outcome.writes.push(d);
    return outcome;
  }

  private async failed(lane: Lane, event: RecordedEvent, error: unknown): Promise<void> {
    lane.failures += 1;
    const message = error instanceof Error ? error.message : String(error);
    if (lane.failures <= this.retries) {
      lane.retryAt = Date.now() + this.backoffMs * 2 ** (lane.failures - 1);
      if (lane.failures === 1) this.log(`projection ${lane.projection.name} failed on ${event.type} ${event.id} (${event.position}); retrying`, error);
      return;
    }
    const parked: ParkedProjection = {
      id: lane.projection.name,
      parked_at: new Date().toISOString(),
      position: event.position,
      event_id: event.id,
      event_type: event.type,
      stream_id: event.streamId,
      error: message.slice(0, 2000),
      attempts: lane.failures,
    };
    lane.parked = parked;
    lane.failures = 0;
    this.log(`projection ${lane.projection.name} parked after ${parked.attempts} attempts on ${event.type} ${event.id} (${event.position}): ${message}`);
    try {
      await this.store.commit([{ collection: PROJECTION_STATUS, id: parked.id, doc: { ...parked } }]);
    } catch (e) {
      this.log(`projection ${lane.projection.name}: could not record that it is parked`, e);
    }
    this.release();
  }

  private nextRetry(): number | null {
    const waiting = this.lanes.filter((l) => !l.parked && l.failures > 0);
    return waiting.length ? Math.min(...waiting.map((l) => l.retryAt)) : null;
  }

  /** Re-reads which projections are parked (another process may have resumed or parked one). */
  async readParked(): Promise<void> {
    this.lastStatusRead = Date.now();
    const found = await this.store.getMany<ParkedProjection>(PROJECTION_STATUS, this.lanes.map((l) => l.projection.name));
    for (const lane of this.lanes) {
      const parked = found.get(lane.projection.name) ?? null;
      if (lane.parked && !parked) {
        lane.failures = 0;
        lane.retryAt = 0;
      }
      lane.parked = parked;
    }
    this.release();
  }

  setFence(fence: Fence | null): void {
    this.fence = fence;
  }

  /** Follows the store live until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const off = this.events.onAppended(() => this.wake?.());
    this.loop = (async () => {
      while (!this.stopped) {
        let read = 0;
        try {
          read = await this.step();
          if (this.lanes.some((l) => l.parked) && Date.now() - this.lastStatusRead > 1000) await this.readParked();
          this.lastLoopError = null;
        } catch (error) {
          if (error instanceof FencedError) {
            // Another worker took the projections (this one was frozen, or its lease lapsed): stop here.
            this.log(`projection pipeline stopped: ${error.message}`);
            this.stopped = true;
            continue;
          }
          if (this.lastLoopError === null) this.log('projection pipeline failed (reading or committing); retrying', error);
          this.lastLoopError = error;
        }
        if (this.stopped) continue;
        if (read > 0) {
          if (read < this.batchSize && this.coalesceMs > 0 && !this.someoneWaits()) await new Promise((r) => setTimeout(r, this.coalesceMs));
          continue;
        }
        const retry = this.nextRetry();
        const wait = retry === null ? this.pollMs : Math.min(this.pollMs, Math.max(0, retry - Date.now()));
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
      off();
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.waiters.giveUp();
  }

  /**
   * Resolves true once every projection has applied everything up to `position`, false after
   * `timeoutMs`; rejects with ProjectionParkedError as soon as a projection that has not got there
   * is parked.
   */
  waitFor(position: string, timeoutMs = 10_000): Promise<boolean> {
    return this.waiters.wait(position, timeoutMs, () => this.wake?.());
  }

  /** Whether a waiter needs a position some projection has not committed yet. */
  private someoneWaits(): boolean {
    return this.waiters.someoneWaits();
  }

  private release(): void {
    this.waiters.release();
    for (const listener of this.progressListeners) listener();
  }
}
