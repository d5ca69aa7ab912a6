import { Worker } from 'node:worker_threads';

/** Where the embedded stores do their commits: a writer thread (file databases, the default) or the event loop. */
export type SqliteWriterMode = 'thread' | 'inline';

/** The mode for a database file: `:memory:` cannot be shared between threads, so it is always inline. */
export function writerModeFor(file: string, wanted: SqliteWriterMode = 'thread'): SqliteWriterMode {
  return file === ':memory:' ? 'inline' : wanted;
}

/** What the writer thread answers when a write fails (the stores make their port's errors of it). */
export interface WriterErrorInfo {
  name: string;
  message: string;
  code?: string;
  conflict?: { streamId: string; expected: unknown; actual: unknown };
  unique?: { collection: string; detail: string };
  /** A fenced commit refused: the lease it named is held at another epoch (FencedError). */
  fenced?: { unit: string; holder: string; epoch: number };
}

/**
 * The writer thread stopped (crashed, was terminated, the process is ending) while a write was in
 * flight: whether that write reached the disk is unknown; nothing was acknowledged. Retry (with the
 * same Idempotency-Key): the next write starts a new thread. Reported as store unavailable (503).
 */
export class WriterThreadStoppedError extends Error {
  readonly code = 'ERR_SQLITE_WRITER_STOPPED';
  constructor(file: string, reason: string) {
    super(`the SQLite writer thread of ${file} stopped (${reason}); the write was not acknowledged`);
    this.name = 'WriterThreadStoppedError';
  }
}

/** A failure the writer thread reported, as an Error with the same message and `code` (so isStoreUnavailable sees it). */
export function writerError(info: WriterErrorInfo): Error {
  return Object.assign(new Error(info.message), { name: info.name, code: info.code });
}

/**
 * A pragma on the connection that writes: the writer thread's when there is one, else `db` (the
 * event loop's connection, inline mode). The rebuild's bulk-load tuning and the fault tests use it.
 */
export async function pragmaOnWriter(writer: SqliteWriterThread | null, db: { pragma(source: string, options: { simple: true }): unknown }, pragma: string): Promise<unknown> {
  if (!writer) return db.pragma(pragma, { simple: true });
  return writer.request('pragma', pragma).catch((e: unknown) => Promise.reject(e instanceof Error ? e : writerError(e as WriterErrorInfo)));
}

interface Pending {
  resolve: (value: any) => void;
  reject: (error: unknown) => void;
}

/**
 * A worker thread with its own better-sqlite3 connection on one database file (the schema must exist:
 * the main thread's connection creates it), doing that store's commits: see sqlite-writer.worker.mjs.
 * Requests are answered in order, each after its transaction committed. The thread starts at the first
 * request, keeps the process alive only while a request is in flight, and if it stops, every request
 * in flight is rejected with WriterThreadStoppedError (`failure` says so until a later request succeeds
 * on a new thread).
 */
export class SqliteWriterThread {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  /** Why the thread last stopped while in use, until a write succeeds again: what /health reports. */
  failure: Error | null = null;

  constructor(
    private readonly file: string,
    private readonly kind: 'events' | 'reads',
    /** More for the thread's workerData (events: `chain`, whether it writes the audit chain). */
    private readonly options: Record<string, unknown> = {},
  ) {}

  request<T>(op: string, payload: unknown): Promise<T> {
    let worker: Worker;
    try {
      worker = this.worker ?? this.start();
    } catch (error) {
      return Promise.reject(new WriterThreadStoppedError(this.file, `could not start: ${(error as Error).message}`));
    }
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      try {
        worker.postMessage({ id, op, payload });
      } catch (error) {
        this.pending.delete(id);
        if (this.pending.size === 0) worker.unref();
        reject(error);
      }
    });
  }

  get busy(): boolean {
    return this.pending.size > 0;
  }

  private start(): Worker {
    // No inherited Node flags (loaders, `--input-type`…): the worker is plain JavaScript needing none.
    const worker = new Worker(new URL('./sqlite-writer.worker.mjs', import.meta.url), { workerData: { ...this.options, file: this.file, kind: this.kind }, execArgv: [] });
    worker.unref();
    worker.on('message', (message: { id: number; result?: unknown; error?: WriterErrorInfo }) => {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (message.error) pending.reject(message.error);
      else {
        this.failure = null;
        pending.resolve(message.result);
      }
    });
    worker.on('error', (error) => this.stopped(worker, error.message));
    worker.on('exit', (code) => this.stopped(worker, `exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private stopped(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    if (this.pending.size === 0) return;
    const error = new WriterThreadStoppedError(this.file, reason);
    this.failure = error;
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  /** Lets the thread finish what it was sent, closes its connection and ends it. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    try {
      await this.request('close', null);
    } catch {
      // Stopped already (its exit is what `exited` waits for).
    }
    this.worker = null;
    // Held until it has exited (nothing else may keep the process alive meanwhile); ended by force if it hangs.
    worker.ref();
    const timer = setTimeout(() => void worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }
}
