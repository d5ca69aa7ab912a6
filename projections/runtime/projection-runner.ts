import type { EventStore, RecordedEvent } from '../../libs/event-store/src/event-store.port.js';
import type { DocumentWrite, ReadStore } from '../../libs/read-store/src/read-store.port.js';
import { APPLIED_AT, type Doc, type Projection } from './projection.js';

export interface RunnerOptions {
  batchSize?: number;
  /** How often an idle runner looks for events appended by other processes. */
  pollMs?: number;
  /**
   * After a batch that found events, wait this long before reading again, so that under a steady
   * stream of appends each read and each read-model commit takes more events (fewer, larger
   * commits); 0 reads again at once. An idle runner is woken at once by an append either way.
   */
  coalesceMs?: number;
}

/**
 * Runs one projection: reads the global order after its checkpoint, applies the pure projector,
 * commits the changed documents together with the new checkpoint. Idempotent under redelivery:
 * an event at or before a document's `_position` is skipped.
 */
export class ProjectionRunner {
  private checkpoint: string | null = null;
  private stopped = true;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly waiters = new Set<{ position: string; resolve: () => void }>();
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly coalesceMs: number;
  private lastError: unknown = null;

  constructor(
    readonly projection: Projection,
    private readonly events: EventStore,
    private readonly store: ReadStore,
    options: RunnerOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.pollMs = options.pollMs ?? 100;
    this.coalesceMs = options.coalesceMs ?? 3;
  }

  get position(): string | null {
    return this.checkpoint;
  }

  async init(): Promise<void> {
    await this.store.ensureCollections(this.projection.collections);
    this.checkpoint = await this.store.getCheckpoint(this.projection.name);
  }

  /** Processes everything up to the head of the store; returns how many events were read. */
  async catchUp(): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.events.readAll({ after: this.checkpoint, maxCount: this.batchSize });
      if (batch.length === 0) return total;
      await this.apply(batch);
      total += batch.length;
    }
  }

  /** Applies one batch of events in global order and commits it with the checkpoint. */
  async apply(batch: RecordedEvent[]): Promise<void> {
    const p = this.projection;
    const touched = batch.map((e) => ({ event: e, ids: p.documentIds(e) }));
    const ids = [...new Set(touched.flatMap((t) => t.ids))];
    const docs = ids.length ? await this.store.getMany<Doc>(p.collection, ids) : new Map<string, Doc>();
    const current = new Map<string, Doc | null>(ids.map((id) => [id, docs.get(id) ?? null]));
    const changed = new Set<string>();
    const derived: DocumentWrite[] = [];
    for (const { event, ids: eventIds } of touched) {
      for (const id of eventIds) {
        const before = current.get(id) ?? null;
        if (before && typeof before[APPLIED_AT] === 'string' && (before[APPLIED_AT] as string) >= event.position) continue;
        const projected = p.project(before, event, id);
        const after = projected ? { ...projected, [APPLIED_AT]: event.position } : null;
        current.set(id, after);
        changed.add(id);
        if (p.derive) derived.push(...p.derive(event, after, before));
      }
    }
    const writes: DocumentWrite[] = [...changed].map((id) => ({ collection: p.collection, id, doc: current.get(id) ?? null }));
    writes.push(...derived);
    const last = batch[batch.length - 1].position;
    await this.store.commit(writes, { name: p.name, position: last });
    if (this.checkpoint === null || last > this.checkpoint) this.checkpoint = last;
    this.release();
  }

  /** Follows the store live until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const off = this.events.onAppended(() => this.wake?.());
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          const n = await this.catchUp();
          this.lastError = null;
          if (n > 0) {
            if (this.coalesceMs > 0) await new Promise((r) => setTimeout(r, this.coalesceMs));
            continue;
          }
        } catch (error) {
          if (this.lastError === null) console.error(`projection ${this.projection.name} failed; retrying`, error);
          this.lastError = error;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollMs);
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
  }

  /** Resolves once this runner has applied everything up to `position`. */
  waitFor(position: string): Promise<void> {
    if (this.checkpoint !== null && this.checkpoint >= position) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.add({ position, resolve });
      this.wake?.();
    });
  }

  private release(): void {
    for (const w of this.waiters) {
      if (this.checkpoint !== null && this.checkpoint >= w.position) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }
}
