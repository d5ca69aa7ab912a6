import { Worker } from 'node:worker_threads';
import type { EventBrief, EventStore } from '#event-store/event-store.port.js';
import type { Fence } from '#read-store/read-store.port.js';
import type { ParkedProjection, PipelineOptions } from './projection-pipeline.js';
import { type LaneState, PositionWaiters } from './position-waiters.js';

/** What the event loop asks of the pipeline, wherever it runs (ProjectionPipeline, or PipelineThread). */
export interface LivePipeline {
  init(): Promise<void>;
  catchUp(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
  readParked(): Promise<void>;
  waitFor(position: string, timeoutMs?: number): Promise<boolean>;
  onBatch(listener: (events: EventBrief[]) => void): () => void;
  watching(): boolean;
  checkpoints(): Map<string, string | null>;
  parked(): ParkedProjection[];
  /** The lease its commits carry from the next `init` (null: none). */
  setFence(fence: Fence | null): void;
}

/**
 * The files the thread opens, and what starts the WAL checkpointer of the read models' file beside
 * the thread's commits (the event loop's read store's writer thread has one: SqliteReadStore.startCheckpointer).
 */
export interface PipelineThreadFiles {
  events: string;
  readModels: string;
  /**
   * The module the thread loads its projections from (ServiceProjections.module): its
   * `allProjections()` are the projections the engine on the event loop was given.
   */
  projections: string;
  startCheckpointer?: () => Promise<void>;
  /**
   * The highest position the event loop's event store has announced (SqliteEventStore.announcedHead):
   * once following, the thread projects no further. Its own connection may see an append committed by
   * the store's writer thread before the event loop has taken the writer's answer; projecting it then
   * would show a request of this process a document (a payment method just saved by another request)
   * before the executor here knows of the append that made it.
   */
  announced?: () => string | null;
  /**
   * The master key (and the previous ones) the thread opens the customers' data keys with
   * (docs/personal-data.md), asked when the thread starts; null or absent: the thread refuses to read
   * an encrypted value rather than project a placeholder in its place.
   */
  personalData?: () => ThreadMasterKeys | null;
}

/** Master keys handed to the pipeline's thread (base64; a thread of this process, never another process). */
export interface ThreadMasterKeys {
  key: string;
  kid: string;
  previous: { key: string; kid: string }[];
}

/** The thread's young generation (MiB): see `thread()`. */
const PIPELINE_THREAD_YOUNG_MB = 8;

/** A request to the thread, answered by a `reply` with its id; `bound` (with `start`): the position announced so far ('' nothing yet), absent for no bound. */
export type ThreadRequest = { id: number; op: 'init' | 'catchUp' | 'start' | 'readParked' | 'stop'; bound?: string; fence?: Fence | null };
/** Messages to the thread: requests, and `wake` with the position announced up to (null: no bound known). */
export type ToPipelineThread = ThreadRequest | { wake: string | null };

export type FromPipelineThread =
  | { type: 'ready' }
  | { type: 'batch'; events: EventBrief[] }
  | { type: 'log'; message: string; error?: string }
  | { type: 'progress'; checkpoints: [string, string | null][]; parked: ParkedProjection[] }
  | { type: 'reply'; id: number; result?: unknown; error?: { name: string; message: string; code?: string } };

/**
 * The projection pipeline in a thread of its own (PROJECTIONS_THREAD=worker, the default on the
 * embedded stores' files; see docs/decisions/0010-pipeline-thread.md): the reading, projecting and committing of the read models
 * leave the event loop, which keeps only what the requests need — a wake-up sent to the thread on
 * every append, each projection's checkpoint and parking as the thread reports them after every
 * commit (read-your-writes waits on those, exactly as on ProjectionPipeline), and each batch's events
 * in brief for the listeners that follow the log (the executor's memory, the API keys, webhooks).
 *
 * The thread runs every projection (`allProjections()` of the module `PipelineThreadFiles.projections`) with its own connections to the two files;
 * it is the only writer of the read models, as the pipeline on the event loop is. Should it stop
 * unexpectedly, it is started again (from the committed checkpoints) after a second.
 */
export class PipelineThread implements LivePipeline {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  /** Each projection's checkpoint and parking, as the thread last reported them. */
  private readonly lanes = new Map<string, LaneState>();
  private readonly waiters = new PositionWaiters(() => this.lanes.values());
  private readonly batchListeners = new Set<(events: EventBrief[]) => void>();
  private following = false;
  private closing = false;
  private offAppended: (() => void) | null = null;

  constructor(
    readonly projectionNames: string[],
    private readonly events: EventStore,
    private readonly files: PipelineThreadFiles,
    options: PipelineOptions = {},
  ) {
    const { log, ...plain } = options;
    this.options = plain;
    this.log = log ?? ((message, error) => console.error(message, error ?? ''));
    for (const name of projectionNames) this.lanes.set(name, { checkpoint: null, parked: null });
  }

  /** The pipeline's options but `log`, which stays here: the thread sends what it logs. */
  private readonly options: Omit<PipelineOptions, 'log'>;
  private readonly log: (message: string, error?: unknown) => void;

  private thread(): Promise<void> {
    if (this.ready) return this.ready;
    const running = import.meta.url.endsWith('.ts');
    const worker = new Worker(new URL(running ? './pipeline-worker.ts' : './pipeline-worker.js', import.meta.url), {
      workerData: { eventsFile: this.files.events, readModelsFile: this.files.readModels, projectionsModule: this.files.projections, options: this.options, masterKeys: this.files.personalData?.() ?? null },
      // A small young generation: the thread's garbage is short-lived batches, and its heap adds to the
      // process's RSS (the billing run of 10,000 peaked at 446 MiB with V8's default, 414–429 with 8 MiB).
      resourceLimits: { maxYoungGenerationSizeMb: PIPELINE_THREAD_YOUNG_MB },
      // From the TypeScript sources (the tests): the loader the child-process tests use.
      execArgv: running ? ['--import', new URL('../../../test/support/register-ts.mjs', import.meta.url).href] : [],
    });
    // The thread never keeps the process alive by itself (stop() ends it).
    worker.unref();
    this.worker = worker;
    this.ready = new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromPipelineThread) => {
        switch (message.type) {
          case 'ready':
            resolve();
            return;
          case 'batch':
            for (const listener of this.batchListeners) listener(message.events);
            return;
          case 'log':
            this.log(message.message, message.error);
            return;
          case 'progress': {
            const parked = new Map(message.parked.map((p) => [p.id, p]));
            for (const [name, checkpoint] of message.checkpoints) this.lanes.set(name, { checkpoint, parked: parked.get(name) ?? null });
            this.waiters.release();
            return;
          }
          case 'reply': {
            const p = this.pending.get(message.id);
            if (!p) return;
            this.pending.delete(message.id);
            if (message.error) p.reject(Object.assign(new Error(message.error.message), { name: message.error.name, code: message.error.code }));
            else p.resolve(message.result);
          }
        }
      });
      worker.on('error', (error) => {
        reject(error);
        this.log('projection pipeline thread failed', error);
      });
      worker.on('exit', (code) => this.exited(worker, code, reject));
    });
    return this.ready;
  }

  private exited(worker: Worker, code: number, reject: (e: Error) => void): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.ready = null;
    const error = new Error(`the projection pipeline thread stopped (exit code ${code})`);
    reject(error);
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    if (this.closing || !this.following) return;
    // Started again from the committed checkpoints.
    setTimeout(() => {
      if (this.closing || !this.following) return;
      this.init()
        .then(() => this.send('start'))
        .catch((e) => this.log('projection pipeline thread: could not start it again', e));
    }, 1000).unref();
  }

  private async send<T = unknown>(op: ThreadRequest['op']): Promise<T> {
    await this.thread();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // `start` carries the bound from which the thread follows (see `announced`); `init` the lease its commits carry.
      const request: ThreadRequest = op === 'start' && this.files.announced ? { id, op, bound: this.files.announced() ?? '' } : op === 'init' ? { id, op, fence: this.fence } : { id, op };
      this.worker!.postMessage(request);
    });
  }

  private fence: Fence | null = null;

  setFence(fence: Fence | null): void {
    this.fence = fence;
  }

  async init(): Promise<void> {
    await this.files.startCheckpointer?.();
    await this.send('init');
  }

  catchUp(): Promise<number> {
    return this.send<number>('catchUp');
  }

  start(): void {
    if (this.following) return;
    this.following = true;
    this.closing = false;
    const wake = () => this.worker?.postMessage({ wake: this.files.announced?.() ?? null } satisfies ToPipelineThread);
    this.offAppended = this.events.onAppended(wake);
    void this.send('start').catch((e) => this.log('projection pipeline thread: could not start', e));
  }

  async stop(): Promise<void> {
    this.following = false;
    this.closing = true;
    this.offAppended?.();
    this.offAppended = null;
    this.waiters.giveUp();
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    await this.send('stop').catch(() => undefined);
    this.worker = null;
    this.ready = null;
    await worker.terminate();
    await exited;
  }

  async readParked(): Promise<void> {
    await this.send('readParked');
  }

  onBatch(listener: (events: EventBrief[]) => void): () => void {
    this.batchListeners.add(listener);
    return () => this.batchListeners.delete(listener);
  }

  watching(): boolean {
    if (!this.following || this.worker === null) return false;
    for (const lane of this.lanes.values()) if (!lane.parked) return true;
    return false;
  }

  checkpoints(): Map<string, string | null> {
    return new Map([...this.lanes].map(([name, l]) => [name, l.checkpoint]));
  }

  parked(): ParkedProjection[] {
    return [...this.lanes.values()].flatMap((l) => (l.parked ? [l.parked] : []));
  }

  waitFor(position: string, timeoutMs = 10_000): Promise<boolean> {
    return this.waiters.wait(position, timeoutMs);
  }
}
