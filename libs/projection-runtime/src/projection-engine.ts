import type { EventStore } from '#event-store/event-store.port.js';
import type { CollectionSpec, Fence, ReadStore } from '#read-store/read-store.port.js';
import { ApiError } from '#shared/errors.js';
import type { Projection } from './projection.js';
import { type ParkedProjection, type PipelineOptions, PROJECTION_STATUS, ProjectionParkedError, ProjectionPipeline } from './projection-pipeline.js';
import { type LivePipeline, PipelineThread, type PipelineThreadFiles } from './pipeline-thread.js';

/** A promise and what resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Collections of projections from before the feed entries were written by the resource projections. */
const LEGACY_FEED = { projection: 'event_feed', collection: 'event_objects' };

/** One projection as `/health` and `projections status` show it. */
export interface ProjectionStatus {
  name: string;
  checkpoint: string | null;
  caught_up: boolean;
  /** Why it stopped, when it is parked. */
  parked: ParkedProjection | null;
}

/** A write answered while a read model it needs is parked: the change is stored, the read model is not there yet. */
export class ReadModelParkedError extends ApiError {
  constructor(cause: ProjectionParkedError) {
    super(
      503,
      'api_error',
      'read_model_unavailable',
      `The request was recorded, but read model ${cause.parked.map((p) => p.id).join(', ')} is stopped after an error ` +
        `(${cause.parked[0].event_type} ${cause.parked[0].event_id}); it will show the change once an operator resumes it. Do not repeat the request.`,
    );
  }
}

/**
 * All projections of the service, run by one pipeline (see ProjectionPipeline). With `start` the
 * pipeline runs in this process (npm start, ROLE=worker); without, this process only reads the
 * checkpoints (ROLE=api) to wait for them. With `thread` (the files of the embedded stores) it runs in
 * a thread of its own (PipelineThread), off the event loop; the projections are then every projection
 * of the service (`allProjections()` of `thread.projections`), which the thread loads itself.
 */
export class ProjectionEngine {
  readonly pipeline: LivePipeline;
  private following = false;
  /** Resolved (and replaced) by every `stop`: a wait on this process's pipeline goes on against the stored checkpoints. */
  private stopped = signal();

  constructor(
    readonly projections: Projection[],
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly options: PipelineOptions = {},
    thread?: PipelineThreadFiles,
  ) {
    this.pipeline = thread
      ? new PipelineThread(projections.map((p) => p.name), events, thread, options)
      : new ProjectionPipeline(projections, events, store, options);
  }

  async init(): Promise<void> {
    await this.dropLegacyFeedCopies();
    await this.pipeline.init();
  }

  /**
   * Before the resource projections wrote the feed's entries, an `event_feed` projection did, from
   * its own copy of every object (`event_objects`). That copy is emptied and its checkpoint removed
   * once; the entries it wrote stay (the same ones the resource projections write).
   */
  private async dropLegacyFeedCopies(): Promise<void> {
    if (this.projections.some((p) => p.name === LEGACY_FEED.projection)) return;
    if ((await this.store.getCheckpoint(LEGACY_FEED.projection)) === null) return;
    await this.store.reset([LEGACY_FEED.collection], LEGACY_FEED.projection);
  }

  catchUp(): Promise<number> {
    return this.pipeline.catchUp();
  }

  start(): void {
    this.following = true;
    this.pipeline.start();
  }

  async stop(): Promise<void> {
    this.following = false;
    this.stopped.resolve();
    this.stopped = signal();
    await this.pipeline.stop();
  }

  /**
   * Runs the pipeline here under a lease (the `projections` unit, libs/platform/src/leases.ts): from
   * the committed checkpoints (another worker may have moved them), caught up, then following, every
   * commit carrying `fence`. Until then, and after `stop`, read-your-writes waits read the stored
   * checkpoints (what the holder commits).
   */
  async follow(fence: Fence | null): Promise<void> {
    this.pipeline.setFence(fence);
    await this.pipeline.init();
    await this.pipeline.catchUp();
    this.start();
  }

  /** Whether the pipeline runs in this process now. */
  get isFollowing(): boolean {
    return this.following;
  }

  /**
   * Read-your-writes: resolves true when every projection has applied the event at `position`, false
   * after `timeoutMs` (the workers are slow, or elsewhere and not running); throws
   * ReadModelParkedError (503) as soon as a projection that has not got there is parked.
   */
  /**
   * How long a write waits for the projections by default (read-your-writes): at least 10 s, and
   * longer than the takeover of the projections by another worker (lease TTL + one renewal, plus its
   * catch-up), so that a write answered while the projections' worker died still reads what it wrote.
   */
  waitTimeoutMs = 10_000;

  async waitFor(position: string | null, timeoutMs = this.waitTimeoutMs): Promise<boolean> {
    if (!position) return true;
    try {
      if (!this.following) return await this.pollCheckpoints(position, timeoutMs);
      // This process's pipeline may stop meanwhile (its lease lost or handed over): the wait then goes
      // on against the stored checkpoints, which the worker that took the projections over commits.
      const started = Date.now();
      const outcome = await Promise.race([this.pipeline.waitFor(position, timeoutMs), this.stopped.promise.then(() => 'stopped' as const)]);
      if (outcome !== 'stopped') return outcome;
      return await this.pollCheckpoints(position, Math.max(0, timeoutMs - (Date.now() - started)));
    } catch (error) {
      if (error instanceof ProjectionParkedError) throw new ReadModelParkedError(error);
      throw error;
    }
  }

  private async pollCheckpoints(position: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (let round = 0; Date.now() < deadline; round++) {
      const checkpoints = await Promise.all(this.projections.map((p) => this.store.getCheckpoint(p.name)));
      const behind = this.projections.filter((_, i) => checkpoints[i] === null || checkpoints[i]! < position);
      if (behind.length === 0) return true;
      if (round % 10 === 0) {
        const parked = await this.store.getMany<ParkedProjection>(PROJECTION_STATUS, behind.map((p) => p.name));
        if (parked.size) throw new ProjectionParkedError([...parked.values()]);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return false;
  }

  /** Each projection's committed checkpoint and whether it is parked, read from the read store. */
  async status(): Promise<ProjectionStatus[]> {
    await this.ensureStatus();
    const head = await this.events.headPosition();
    const parked = await this.store.getMany<ParkedProjection>(PROJECTION_STATUS, this.names());
    return Promise.all(
      this.projections.map(async (p) => {
        const checkpoint = await this.store.getCheckpoint(p.name);
        return { name: p.name, checkpoint, caught_up: head === null || (checkpoint !== null && checkpoint >= head), parked: parked.get(p.name) ?? null };
      }),
    );
  }

  /** Un-parks a projection: a running pipeline retries it from its checkpoint within a second or so. */
  async resume(name: string): Promise<boolean> {
    this.known(name);
    await this.ensureStatus();
    const parked = await this.store.get(PROJECTION_STATUS, name);
    if (!parked) return false;
    await this.store.commit([{ collection: PROJECTION_STATUS, id: name, doc: null }]);
    await this.pipeline.readParked();
    return true;
  }

  /**
   * Drops the read models of one projection (or all) and rebuilds them from the first event, in one
   * pass of the pipeline over the chosen projections (un-parking them).
   */
  async rebuild(name?: string): Promise<{ name: string; events: number }[]> {
    if (name) this.known(name);
    const chosen = name ? this.projections.filter((p) => p.name === name) : this.projections;
    await this.ensureStatus();
    // A collection another projection also writes (the feed's) is emptied only when all its writers
    // are rebuilt; otherwise the chosen ones write their entries over it again (the same entries).
    const kept = new Set(this.projections.filter((p) => !chosen.includes(p)).flatMap((p) => p.collections.map((c) => c.name)));
    const emptied = new Map<string, CollectionSpec>();
    for (const p of chosen) for (const c of p.collections) if (!kept.has(c.name)) emptied.set(c.name, c);
    const done = new Set<string>();
    for (const p of chosen) {
      const own = p.collections.map((c) => c.name).filter((c) => emptied.has(c) && !done.has(c));
      for (const c of own) done.add(c);
      await this.store.reset(own, p.name);
    }
    await this.store.commit(chosen.map((p) => ({ collection: PROJECTION_STATUS, id: p.name, doc: null })));
    // Larger batches than live (fewer commits; nobody waits on a rebuild's first events).
    const pass = new ProjectionPipeline(chosen, this.events, this.store, { ...this.options, batchSize: this.options.batchSize ?? 5000 });
    await pass.init();
    // The chosen collections are empty: fill them without their (non-unique) indexes, then build those once.
    const specs = [...emptied.values()];
    await this.store.beginBulkLoad?.(specs);
    let events: number;
    try {
      events = await pass.catchUp();
    } catch (error) {
      // The pass's error is the one to report; the indexes come back here or at the next start.
      await this.store.endBulkLoad?.(specs).catch(() => undefined);
      throw error;
    }
    await this.store.endBulkLoad?.(specs);
    await this.pipeline.init();
    return chosen.map((p) => ({ name: p.name, events }));
  }

  names(): string[] {
    return this.projections.map((p) => p.name);
  }

  private ensureStatus(): Promise<void> {
    return this.store.ensureCollections([{ name: PROJECTION_STATUS, indexes: [] }]);
  }

  private known(name: string): void {
    if (!this.projections.some((p) => p.name === name)) {
      throw new Error(`no projection named ${name}; known: ${this.names().join(', ')}`);
    }
  }

  /** The event store, for callers that only have the engine. */
  get eventStore(): EventStore {
    return this.events;
  }
}
