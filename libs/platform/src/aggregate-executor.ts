import { Inject, Injectable, Optional } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { type EventStore, type NewEvent, type EventBrief, type RecordedEvent, type StreamAppend, WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import { laterPosition } from '#event-store/positions.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { Decider, DomainEvent } from '#shared/decider.js';
import { ApiError } from '#shared/errors.js';
import { newEventUuid } from '#shared/ids.js';
import { currentIdempotentScope, nextStep } from '#shared/idempotent-scope.js';
import type { CommandContext } from './command-context.js';
import { EVENT_STORE, READ_STORE } from './tokens.js';
import { eventsAppended } from './metrics.js';
import { domainCodeVersion } from './domain-code-version.js';

export interface Execution<S> {
  state: S;
  /** Events appended by this command (empty when the decider had nothing to say). */
  events: NewEvent[];
  /** Global position of the last appended event, for read-your-writes. */
  position: string | null;
}

export interface ExecuteOptions {
  /** The stream's id was minted for this command (newId): its stream is not read first. */
  newStream?: boolean;
  /** Internal (a one-commit section's replay): append at once, outside any unit of work, under this idempotency step. */
  direct?: { step: string | null; replaying: object };
}

/** A command staged on a stream that exists, kept to be decided again one by one if the section's commit meets a conflict. */
interface Replay {
  decider: Decider<any, any, any>;
  streamId: string;
  command: (now: Date) => unknown;
  ctx: CommandContext | null;
  step: string | null;
}

/** What tells the executor of writes made by other processes (the projection pipeline). */
export interface ForeignWriteSource {
  /** Calls `listener` with every batch of events read from the store; returns its removal. */
  onBatch(listener: (events: EventBrief[]) => void): () => void;
  /** True while batches are being read (the pipeline follows the store). */
  watching(): boolean;
}

const MAX_ATTEMPTS = 8;
/** Streams whose state is kept in memory (LRU). */
export const AGGREGATE_CACHE_SIZE = 20_000;
/** A snapshot is written once a stream has grown this many events past its last one. */
export const SNAPSHOT_EVERY = 16;
/** Where snapshots live: a read-store collection (a cache, never the truth; safe to drop). */
export const SNAPSHOTS = 'aggregate_snapshots';

interface Known {
  decider: object;
  state: unknown;
  /** Revision of the last event folded into `state` (-1: the stream does not exist). */
  revision: number;
  /** Revision the newest snapshot stands at (-1: none). */
  snapshot: number;
}

interface SnapshotDoc {
  id: string;
  version: string;
  revision: number;
  state: unknown;
}

/**
 * A unit of work (AggregateExecutor.unitOfWork): commands on streams that do not exist yet (and
 * further commands on those streams) are decided at once but appended together, in the order they
 * were decided, by one multi-stream append when the unit is flushed.
 */
interface UnitOfWork {
  /** Decided, not yet appended, in decision order. */
  staged: StreamAppend[];
  /** The state of each stream with staged events (revision counts the staged events). */
  streams: Map<string, Known>;
  /** Position of the last event the unit appended. */
  position: string | null;
  closed: boolean;
  /** The flush under way (flushes run one after another, so the store sees the decision order). */
  flushing: Promise<unknown>;
  /** A one-commit section (oneCommit): commands on existing streams are staged too. */
  existing: boolean;
  /** Every staged command of a one-commit section, in decision order (for a replay after a conflict). */
  replays: Replay[];
}

/** Plain JSON all the way down (no Date, Map, class instance…): what a snapshot can hold and give back the same. */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || value === undefined || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isPlainJson(v, depth + 1));
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value as Record<string, unknown>).every((v) => isPlainJson(v, depth + 1));
  }
  return false;
}

/**
 * The write path of every command: the stream's state, decide, append with the expected revision;
 * on a concurrent write, reload and decide again.
 *
 * The state comes from memory when this process has it (an LRU of recently used streams with their
 * revision): the expected-revision append is the check that nobody wrote since, and a conflict
 * evicts the entry and re-reads. A decision that says nothing or refuses, taken on a remembered
 * state, is confirmed against the stream's tail first (another process may have moved it on).
 * Cold reads start from the stream's latest snapshot (every SNAPSHOT_EVERY events, in the read
 * store, tagged with a hash of the decider's code so a changed decider never reads an old one),
 * so a ten-year-old subscription folds as few events as a new one.
 */
@Injectable()
export class AggregateExecutor {
  private readonly cache = new LRUCache<string, Known>({ max: AGGREGATE_CACHE_SIZE });
  private readonly versions = new WeakMap<object, string>();
  private snapshotsReady: Promise<void> | null = null;
  /**
   * Open units of work, by the command context their commands carry (no AsyncLocalStorage: its
   * promise hooks would slow every request down), and the streams they have staged events on.
   */
  private readonly units = new WeakMap<CommandContext, UnitOfWork>();
  private readonly stagedStreams = new Map<string, UnitOfWork>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(READ_STORE) private readonly snapshots: ReadStore | null = null,
  ) {}

  /** The time a command for `ctx` is decided at: the context's own time (test clock, deadline), else the clock's. */
  now(ctx?: Pick<CommandContext, 'now'> | null): Date {
    return ctx?.now ? new Date(ctx.now.getTime()) : this.clock.now();
  }

  /**
   * Runs `work` as one unit of work — the commands executed with `ctx` (the same object) — : a command on a stream that does not exist yet (a new
   * subscription, its first collection and that collection's first attempt) is decided at once and
   * its events are staged; they are appended together, in decision order, by one multi-stream
   * append (one commit on SQLite) when the unit is flushed — by `flush()` (before anything leaves
   * the process, e.g. a gateway call), before a command on a stream that already exists (so the
   * global order is the order of the decisions), before a read of a staged stream's history, and
   * when `work` ends (also when it throws: what was decided before the error is kept, as it would
   * have been appended step by step). Returns `work`'s result and the position of the last event
   * the unit appended. A conflict on a staged stream (another writer created it meanwhile) is a 409.
   */
  async unitOfWork<T>(ctx: CommandContext, work: () => Promise<T>): Promise<{ result: T; position: string | null }> {
    const outer = this.units.get(ctx);
    const unit: UnitOfWork = outer ?? this.newUnit(false);
    if (!outer) this.units.set(ctx, unit);
    let result: T;
    try {
      result = await work();
    } finally {
      await this.flushUnit(unit).finally(() => {
        if (unit !== outer) {
          unit.closed = true;
          this.units.delete(ctx);
        }
      });
    }
    return { result, position: unit.position };
  }

  /**
   * Runs `work` as one commit where the store writes several streams atomically (SQLite): every
   * command executed with `ctx` inside it — on new streams and on streams that exist, each with its
   * expected revision — is decided at once and staged, and all are appended by one multi-stream
   * append in decision order when `work` ends (or at `flush(ctx)`, e.g. before a gateway call). If
   * that append meets a concurrent write (nothing of it is written), the staged commands are decided
   * again one by one on the streams' current state and appended as `execute` does, each with its own
   * retries — what would have happened without the section. Inside another section it joins it; on a
   * store without atomic multi-stream appends it runs `work` as it is. What the enclosing unit of work
   * had staged is written first. Returns `work`'s result and the position of the section's last event.
   */
  async oneCommit<T>(ctx: CommandContext, work: () => Promise<T>): Promise<{ result: T; position: string | null }> {
    const outer = this.units.get(ctx);
    if (!this.store.atomicMultiStream || (outer && outer.existing && !outer.closed)) return { result: await work(), position: null };
    if (outer) await this.flushUnit(outer);
    const unit = this.newUnit(true);
    this.units.set(ctx, unit);
    let result: T;
    try {
      result = await work();
    } finally {
      await this.flushUnit(unit).finally(() => {
        unit.closed = true;
        if (outer) this.units.set(ctx, outer);
        else this.units.delete(ctx);
      });
    }
    return { result, position: unit.position };
  }

  private newUnit(existing: boolean): UnitOfWork {
    return { staged: [], streams: new Map(), position: null, closed: false, flushing: Promise.resolve(), existing, replays: [] };
  }

  /** Appends what the unit of work of `ctx` has staged (nothing outside one); returns the unit's last position. */
  flush(ctx: CommandContext | null): Promise<string | null> {
    const unit = ctx ? this.units.get(ctx) : undefined;
    return unit ? this.flushUnit(unit) : Promise.resolve(null);
  }

  private async flushUnit(unit: UnitOfWork): Promise<string | null> {
    if (unit.closed) return null;
    const previous = unit.flushing;
    const parts = unit.staged;
    const streams = unit.streams;
    const replays = unit.replays;
    unit.staged = [];
    unit.streams = new Map();
    unit.replays = [];
    for (const streamId of streams.keys()) this.stagedStreams.delete(streamId);
    const done = previous.catch(() => undefined).then(() => (parts.length ? this.appendStaged(unit, parts, streams, replays) : undefined));
    unit.flushing = done;
    await done;
    return unit.position;
  }

  private async appendStaged(unit: UnitOfWork, parts: StreamAppend[], streams: Map<string, Known>, replays: Replay[]): Promise<void> {
    let results;
    try {
      results = await this.store.appendMany(parts);
    } catch (error) {
      for (const part of parts) this.cache.delete(part.streamId);
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (replays.length) {
        // A one-commit section met a concurrent write (nothing of it was written): each command is
        // decided again on its stream's current state and appended on its own, in the same order.
        for (const r of replays) {
          const again = await this.execute(r.decider, r.streamId, r.command, r.ctx, { direct: { step: r.step, replaying: unit } });
          unit.position = laterPosition(unit.position, again.position);
        }
        return;
      }
      throw new ApiError(409, 'invalid_request_error', 'concurrent_update', 'The object was changed by another request; retry.');
    }
    parts.forEach((part, i) => {
      eventsAppended.inc({ category: part.streamId.split('-')[0] }, part.events.length);
      unit.position = laterPosition(unit.position, results[i].position);
    });
    for (const [streamId, known] of streams) {
      this.remember(streamId, known);
      this.maybeSnapshot(known.decider as Decider<any, any, any>, streamId, known);
    }
  }

  /**
   * The stream's current state (memory or snapshot, plus whatever the store has after it). A
   * remembered state is taken as it is, without reading the stream's tail, while this process's
   * projection pipeline watches the store for writes of other processes (`watchForeignWrites`):
   * what this process writes goes through here and updates the memory, what another process writes
   * evicts it when the pipeline reads it. Without a watch (ROLE=api, the pipeline stopped) the tail
   * is read every time.
   */
  async load<S, E extends DomainEvent>(decider: Decider<any, S, E>, streamId: string): Promise<{ state: S; revision: number }> {
    const staged = this.staged(decider, streamId);
    if (staged) return { state: staged.state as S, revision: staged.revision };
    const known = this.remembered(decider, streamId);
    const current = known ? (this.watch?.watching() ? known : await this.catchUp(decider, streamId, known)) : await this.read(decider, streamId);
    return { state: current.state as S, revision: current.revision };
  }

  /**
   * Lets `load` trust the memory: `source` hands over every batch of events it reads from the store
   * (in the global order) and says whether it is reading now. An event beyond the revision this
   * process remembers for its stream was written by another process (or is one of this process's own
   * whose append has not returned yet): the stream is forgotten, and the next command reads it again.
   */
  watchForeignWrites(source: ForeignWriteSource): () => void {
    const off = source.onBatch((events) => {
      for (const e of events) {
        const known = this.cache.peek(e.streamId);
        if (known && known.revision < e.revision) {
          this.cache.delete(e.streamId);
          this.foreignEvictions++;
        }
      }
    });
    this.watch = source;
    return () => {
      off();
      if (this.watch === source) this.watch = null;
    };
  }

  /** Remembered states forgotten because the pipeline saw their stream move on (tests, benchmarks). */
  foreignEvictions = 0;
  private watch: ForeignWriteSource | null = null;

  /** The whole stream (for callers that look back through its events) and the state it folds to. */
  async loadHistory<S, E extends DomainEvent>(decider: Decider<any, S, E>, streamId: string) {
    const unit = this.stagedStreams.get(streamId);
    if (unit) await this.flushUnit(unit);
    const history = await this.store.readStream(streamId);
    const state = history.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState);
    const revision = history.length ? history[history.length - 1].revision : -1;
    this.remember(streamId, { decider, state, revision, snapshot: this.cache.get(streamId)?.snapshot ?? -1 });
    return { state, revision, history };
  }

  async execute<C, S, E extends DomainEvent>(
    decider: Decider<C, S, E>,
    streamId: string,
    command: (now: Date) => C,
    ctx: CommandContext | null,
    options: ExecuteOptions = {},
  ): Promise<Execution<S>> {
    // A request with an Idempotency-Key numbers its commands per stream and command type; when a
    // resumed run (after a crash) finds this command's events already appended by the interrupted
    // run, it skips it. That needs the stream's events, so such a command reads its stream whole.
    const scope = ctx?.idempotencyKey ? currentIdempotentScope() : undefined;
    let step: string | null = options.direct?.step ?? null;
    let known = scope ? null : this.remembered(decider, streamId);
    // A stream id minted just now: nothing to read; the `no_stream` append is the check (a refusal
    // or a conflict reads the stream as for a remembered state). Under an Idempotency-Key ids are
    // derived from the key, so a resumed run may find the stream: it reads it (above).
    if (!known && !scope && options.newStream && !this.stagedStreams.has(streamId)) {
      known = { decider, state: decider.initialState, revision: -1, snapshot: -1 };
    }
    let fromMemory = known !== null;
    const unit = ctx && !options.direct ? this.units.get(ctx) : undefined;
    // A stream another unit of work has staged events on (not this command's): those are written first.
    // (Not the unit being replayed: its flush is the one waiting for this command.)
    const other = this.stagedStreams.get(streamId);
    if (other && other !== unit && other !== options.direct?.replaying) await this.flushUnit(other);
    for (let attempt = 1; ; ) {
      let history: RecordedEvent[] | null = null;
      // A stream this unit of work has staged events on: its state is the staged one (nothing of it
      // is in the store yet, so its stored history is empty).
      const staged = options.direct ? null : this.staged(decider, streamId);
      if (staged) {
        known = staged;
        history = [];
        fromMemory = false;
      } else if (scope) {
        const loaded = await this.loadHistory(decider, streamId);
        history = loaded.history;
        known = { decider, state: loaded.state, revision: loaded.revision, snapshot: -1 };
        fromMemory = false;
      } else if (!known) known = await this.read(decider, streamId);
      const state = known.state as S;
      const now = this.now(ctx);
      const decision = command(now);
      if (scope && history) {
        if (step === null) {
          const type = String((decision as { type?: unknown }).type ?? 'command');
          step = `${type}#${nextStep(scope, `${streamId}|${type}`)}`;
        }
        const done = history.filter((e) => e.metadata.idempotency_scope === scope.seed && e.metadata.idempotency_step === step);
        if (done.length) return { state, events: [], position: done[done.length - 1].position };
      }
      let decided: E[];
      try {
        decided = decider.decide(decision, state);
      } catch (error) {
        // A refusal on a remembered state: confirm it on the stream's tail.
        if (fromMemory && (known = await this.moved(decider, streamId, known))) {
          fromMemory = false;
          continue;
        }
        throw error;
      }
      if (decided.length === 0) {
        if (fromMemory && (known = await this.moved(decider, streamId, known!))) {
          fromMemory = false;
          continue;
        }
        return { state, events: [], position: null };
      }
      const events: NewEvent[] = decided.map((e) => ({
        id: newEventUuid(),
        type: e.type,
        data: e.data as Record<string, unknown>,
        metadata: {
          account_id: ctx?.accountId,
          mode: ctx?.mode,
          request_id: ctx?.requestId ?? undefined,
          idempotency_key: ctx?.idempotencyKey ?? null,
          causation_id: ctx?.causationId ?? ctx?.requestId ?? undefined,
          correlation_id: ctx?.correlationId ?? ctx?.requestId ?? undefined,
          occurred_at: now.toISOString(),
          ...(scope && step ? { idempotency_scope: scope.seed, idempotency_step: step } : {}),
          ...(ctx?.actor ? { actor: ctx.actor } : {}),
          ...(ctx?.address ? { address: ctx.address } : {}),
        },
      }));
      if (unit && !unit.closed) {
        if (staged || known.revision < 0 || unit.existing) {
          // A new stream (or one already staged; in a one-commit section any stream): staged, appended when the unit is flushed.
          unit.staged.push({ streamId, events, expected: known.revision < 0 ? 'no_stream' : known.revision });
          if (unit.existing) unit.replays.push({ decider, streamId, command, ctx, step });
          const after = decided.reduce((s, e) => decider.evolve(s, e), state);
          unit.streams.set(streamId, { decider, state: after, revision: known.revision + events.length, snapshot: known.snapshot });
          this.stagedStreams.set(streamId, unit);
          return { state: after, events, position: null };
        }
        // A stream that exists: what was staged before this decision is appended first (event order).
        await this.flushUnit(unit);
      }
      try {
        const result = await this.store.append(streamId, events, known.revision < 0 ? 'no_stream' : known.revision);
        eventsAppended.inc({ category: streamId.split('-')[0] }, events.length);
        const after = decided.reduce((s, e) => decider.evolve(s, e), state);
        const next: Known = { decider, state: after, revision: result.nextExpectedRevision, snapshot: known.snapshot };
        this.remember(streamId, next);
        this.maybeSnapshot(decider, streamId, next);
        return { state: after, events, position: result.position };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        // Someone else wrote the stream: forget what this process knew and read it again.
        this.cache.delete(streamId);
        known = null;
        if (fromMemory) {
          fromMemory = false; // a stale memory is not a contended stream: re-read at once
          continue;
        }
        if (++attempt > MAX_ATTEMPTS) {
          throw new ApiError(409, 'invalid_request_error', 'concurrent_update', 'The object was changed by another request; retry.');
        }
        await new Promise((r) => setTimeout(r, Math.random() * 5 * attempt));
      }
    }
  }

  /** Forgets every remembered state (tests, benchmarks of the cold path). */
  forgetAll(): void {
    this.cache.clear();
  }

  /**
   * Forgets the remembered states of these streams (a batch worker's one-off streams, e.g. the
   * scheduler's renewals, which would otherwise fill the memory and push out the hot ones). Only a
   * shortcut is lost: the next command reads the snapshot and tail.
   */
  forget(...streamIds: string[]): void {
    for (const streamId of streamIds) this.cache.delete(streamId);
  }

  private staged(decider: object, streamId: string): Known | null {
    const unit = this.stagedStreams.get(streamId);
    const known = unit && !unit.closed ? unit.streams.get(streamId) : undefined;
    return known && known.decider === decider ? known : null;
  }

  private remembered(decider: object, streamId: string): Known | null {
    const known = this.cache.get(streamId);
    return known && known.decider === decider ? known : null;
  }

  /** Keeps the newer of what is remembered and `next` (concurrent commands finish in any order). */
  private remember(streamId: string, next: Known): void {
    const held = this.cache.get(streamId);
    if (held && held.decider === next.decider && held.revision > next.revision) return;
    this.cache.set(streamId, next);
  }

  /** The remembered state moved on to the stream's tail, or null when nothing was appended since. */
  private async moved<S, E extends DomainEvent>(decider: Decider<any, S, E>, streamId: string, known: Known): Promise<Known | null> {
    const tail = await this.store.readStream(streamId, known.revision + 1);
    if (tail.length === 0) return null;
    const next = this.fold(decider, known, tail);
    this.remember(streamId, next);
    return next;
  }

  private async catchUp<S, E extends DomainEvent>(decider: Decider<any, S, E>, streamId: string, known: Known): Promise<Known> {
    return (await this.moved(decider, streamId, known)) ?? known;
  }

  private fold<S, E extends DomainEvent>(decider: Decider<any, S, E>, from: Known, events: RecordedEvent[]): Known {
    const state = events.reduce((s, e) => decider.evolve(s, e as unknown as E), from.state as S);
    return { decider, state, revision: events.length ? events[events.length - 1].revision : from.revision, snapshot: from.snapshot };
  }

  /** A cold read: the latest snapshot (if any) and the events after it. */
  private async read<S, E extends DomainEvent>(decider: Decider<any, S, E>, streamId: string): Promise<Known> {
    const snapshot = await this.readSnapshot(decider, streamId);
    const start: Known = snapshot
      ? { decider, state: snapshot.state, revision: snapshot.revision, snapshot: snapshot.revision }
      : { decider, state: decider.initialState, revision: -1, snapshot: -1 };
    const known = this.fold(decider, start, await this.store.readStream(streamId, start.revision + 1));
    this.remember(streamId, known);
    this.maybeSnapshot(decider, streamId, known);
    return known;
  }

  /**
   * The decider's code and initial state, and the whole domain code's version, hashed: a snapshot taken
   * by other code is never used, even when only a helper its `evolve` calls changed.
   */
  private version(decider: Decider<any, any, any>): string {
    let v = this.versions.get(decider);
    if (!v) {
      v = createHash('sha256').update(domainCodeVersion()).update(decider.evolve.toString()).update(JSON.stringify(decider.initialState)).digest('hex').slice(0, 16);
      this.versions.set(decider, v);
    }
    return v;
  }

  private ensureSnapshots(): Promise<void> {
    this.snapshotsReady ??= this.snapshots!.ensureCollections([{ name: SNAPSHOTS, indexes: [] }]).catch((error) => {
      this.snapshotsReady = null;
      throw error;
    });
    return this.snapshotsReady;
  }

  private async readSnapshot(decider: Decider<any, any, any>, streamId: string): Promise<SnapshotDoc | null> {
    if (!this.snapshots) return null;
    try {
      await this.ensureSnapshots();
      const doc = await this.snapshots.get<SnapshotDoc>(SNAPSHOTS, streamId);
      return doc && doc.version === this.version(decider) ? doc : null;
    } catch {
      return null; // a snapshot is only a shortcut
    }
  }

  private maybeSnapshot(decider: Decider<any, any, any>, streamId: string, known: Known): void {
    if (!this.snapshots || known.revision - known.snapshot < SNAPSHOT_EVERY || !isPlainJson(known.state)) return;
    known.snapshot = known.revision;
    const doc: SnapshotDoc = { id: streamId, version: this.version(decider), revision: known.revision, state: known.state };
    void this.ensureSnapshots()
      .then(() => this.snapshots!.commit([{ collection: SNAPSHOTS, id: streamId, doc: doc as unknown as Record<string, unknown> }]))
      .catch(() => undefined);
  }
}
