import { Worker } from 'node:worker_threads';
import type { EventBrief, EventStore } from '../../libs/event-store/src/event-store.port.js';
import { type ParkedProjection, type PipelineOptions, ProjectionParkedError } from './projection-pipeline.js';

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
}

/**
 * The files the thread opens, and what starts the WAL checkpointer of the read models' file beside
 * the thread's commits (the event loop's read store's writer thread has one: SqliteReadStore.startCheckpointer).
 */
export interface PipelineThreadFiles {
  events: string;
  readModels: string;
  startCheckpointer?: () => Promise<void>;
}

/** The thread's young generation (MiB): see `thread()`. */
const PIPELINE_THREAD_YOUNG_MB = 8;

/** Messages to the thread (each answered by a `reply` with its id), besides the bare `'wake'`. */
export type ToPipelineThread = { id: number; op: 'init' | 'catchUp' | 'start' | 'readParked' | 'stop' };

export type FromPipelineThread =
  | { type: 'ready' }
  | { type: 'batch'; events: EventBrief[] }
  | { type: 'log'; message: string; error?: string }
  | { type: 'progress'; checkpoints: [string, string | null][]; parked: ParkedProjection[] }
  | { type: 'reply'; id: number; result?: unknown; error?: { name: string; message: string; code?: string } };

/**
 * The projection pipeline in a thread of its own (PROJECTIONS_THREAD=worker, the default of the
 * service on the embedded stores' files): the reading, projecting and committing of the read models
 * leave the event loop, which keeps only what the requests need — a wake-up sent to the thread on
 * every append, each projection's checkpoint and parking as the thread reports them after every
 * commit (read-your-writes waits on those, exactly as on ProjectionPipeline), and each batch's events
 * in brief for the listeners that follow the log (the executor's memory, the API keys, webhooks).
 *
 * The thread runs every projection (`allProjections()`) with its own connections to the two files;
 * it is the only writer of the read models, as the pipeline on the event loop is. Should it stop
 * unexpectedly, it is started again (from the committed checkpoints) after a second.
 */
export class PipelineThread implements LivePipeline {
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private readonly lanes = new Map<string, string | null>();
  private parkedNow: ParkedProjection[] = [];
  private readonly waiters = new Set<{ position: string; resolve: () => void; reject: (e: Error) => void }>();
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
    for (const name of projectionNames) this.lanes.set(name, null);
  }

  /** The pipeline's options but `log`, which stays here: the thread sends what it logs. */
  private readonly options: Omit<PipelineOptions, 'log'>;
  private readonly log: (message: string, error?: unknown) => void;

  private thread(): Promise<void> {
    if (this.ready) return this.ready;
    const running = import.meta.url.endsWith('.ts');
    const worker = new Worker(new URL(running ? './pipeline-worker.ts' : './pipeline-worker.js', import.meta.url), {
      workerData: { eventsFile: this.files.events, readModelsFile: this.files.readModels, options: this.options },
      // A small young generation: the thread's garbage is short-lived batches, and its heap adds to the
      // process's RSS (measured in the billing run: 446 MiB peak with V8's default, 419 with 4 MiB).
      resourceLimits: { maxYoungGenerationSizeMb: PIPELINE_THREAD_YOUNG_MB },
      // From the TypeScript sources (the tests): the loader the child-process tests use.
      execArgv: running ? ['--import', new URL('../../test/support/register-ts.mjs', import.meta.url).href] : [],
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
          case 'progress':
            for (const [name, checkpoint] of message.checkpoints) this.lanes.set(name, checkpoint);
            this.parkedNow = message.parked;
            this.release();
            return;
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

  private async send<T = unknown>(op: ToPipelineThread['op']): Promise<T> {
    await this.thread();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker!.postMessage({ id, op } satisfies ToPipelineThread);
    });
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
    this.offAppended = this.events.onAppended(() => this.worker?.postMessage('wake'));
    void this.send('start').catch((e) => this.log('projection pipeline thread: could not start', e));
  }

  async stop(): Promise<void> {
    this.following = false;
    this.closing = true;
    this.offAppended?.();
    this.offAppended = null;
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
    return this.following && this.worker !== null && this.parkedNow.length < this.lanes.size;
  }

  checkpoints(): Map<string, string | null> {
    return new Map(this.lanes);
  }

  parked(): ParkedProjection[] {
    return [...this.parkedNow];
  }

  waitFor(position: string, timeoutMs = 10_000): Promise<boolean> {
    const state = this.reached(position);
    if (state === true) return Promise.resolve(true);
    if (state instanceof Error) return Promise.reject(state);
    return new Promise((resolve, reject) => {
      const waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private reached(position: string): true | false | ProjectionParkedError {
    let behind = false;
    for (const checkpoint of this.lanes.values()) if (checkpoint === null || checkpoint < position) behind = true;
    if (!behind) return true;
    const parked = this.parkedNow.filter((p) => {
      const checkpoint = this.lanes.get(p.id);
      return checkpoint === undefined || checkpoint === null || checkpoint < position;
    });
    return parked.length ? new ProjectionParkedError(parked) : false;
  }

  private release(): void {
    for (const w of this.waiters) {
      const state = this.reached(w.position);
      if (state === false) continue;
      this.waiters.delete(w);
      if (state === true) w.resolve();
      else w.reject(state);
    }
  }
}
