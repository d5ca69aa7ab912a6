import type { EventStore } from '../../libs/event-store/src/event-store.port.js';
import type { ReadStore } from '../../libs/read-store/src/read-store.port.js';
import type { Projection } from './projection.js';
import { ProjectionRunner, type RunnerOptions } from './projection-runner.js';

/**
 * All projections of the service. With `follow` the runners run in this process (npm start,
 * ROLE=worker); without, this process only reads their checkpoints (ROLE=api) to wait for them.
 */
export class ProjectionEngine {
  readonly runners: ProjectionRunner[];
  private following = false;

  constructor(
    readonly projections: Projection[],
    private readonly events: EventStore,
    private readonly store: ReadStore,
    options: RunnerOptions = {},
  ) {
    this.runners = projections.map((p) => new ProjectionRunner(p, events, store, options));
  }

  async init(): Promise<void> {
    for (const r of this.runners) await r.init();
  }

  async catchUp(): Promise<void> {
    for (const r of this.runners) await r.catchUp();
  }

  start(): void {
    this.following = true;
    for (const r of this.runners) r.start();
  }

  async stop(): Promise<void> {
    this.following = false;
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  /**
   * Read-your-writes: resolves when every projection has applied the event at `position`
   * (or after `timeoutMs`, when the workers are slow or elsewhere and not running).
   */
  async waitFor(position: string | null, timeoutMs = 10_000): Promise<boolean> {
    if (!position) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const caughtUp = this.following
      ? Promise.all(this.runners.map((r) => r.waitFor(position))).then(() => true)
      : this.pollCheckpoints(position, timeoutMs);
    try {
      return await Promise.race([caughtUp, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async pollCheckpoints(position: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const checkpoints = await Promise.all(this.projections.map((p) => this.store.getCheckpoint(p.name)));
      if (checkpoints.every((c) => c !== null && c >= position)) return true;
      await new Promise((r) => setTimeout(r, 10));
    }
    return false;
  }

  /** Drops the read models of one projection (or all) and rebuilds them from the first event. */
  async rebuild(name?: string): Promise<{ name: string; events: number }[]> {
    const chosen = name ? this.runners.filter((r) => r.projection.name === name) : this.runners;
    if (name && chosen.length === 0) {
      throw new Error(`no projection named ${name}; known: ${this.projections.map((p) => p.name).join(', ')}`);
    }
    const done: { name: string; events: number }[] = [];
    for (const r of chosen) {
      await this.store.reset(
        r.projection.collections.map((c) => c.name),
        r.projection.name,
      );
      await r.init();
      done.push({ name: r.projection.name, events: await r.catchUp() });
    }
    return done;
  }

  names(): string[] {
    return this.projections.map((p) => p.name);
  }

  /** The event store, for callers that only have the engine. */
  get eventStore(): EventStore {
    return this.events;
  }
}
