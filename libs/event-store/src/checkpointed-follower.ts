import { Logger } from '@nestjs/common';
import type { Fence, ReadStore } from '#read-store/read-store.port.js';
import type { EventStore, RecordedEvent } from './event-store.port.js';
import { BEFORE_FIRST_POSITION, isAtOrAfter } from './positions.js';

/** The lease a follower runs under (libs/platform/src/leases.ts's HeldLease, as this context needs it). */
export interface FollowerLease {
  readonly fence: Fence;
  /** False once the lease is lost or may have lapsed: the follower acts no more. */
  valid(): boolean;
}

export interface FollowerOptions {
  /** Checkpoint name in the read store (e.g. `mail:collections`). */
  name: string;
  /** Pause between reads when there is nothing new (an append wakes the follower early). */
  pollMs: number;
  /** Pause after a failed round before the failing event is tried again (default 5 × pollMs). */
  retryMs?: number;
  /**
   * Acts on an event only once this long has passed since the follower first saw it (default 0), so
   * that an inline step of the request that wrote it normally runs first.
   */
  graceMs?: number;
  /**
   * How often at most the checkpoint is written only to pass events that needed nothing (default
   * 1000 ms; an event acted on moves it at once, and stop() writes where the follower got to). Each
   * such write is a read-store commit, which the projections' commits would otherwise queue behind
   * after every append; after a crash the follower reads those events again and passes them again.
   */
  checkpointEveryMs?: number;
  /**
   * The only event types `handle` acts on, when it acts on few: `handle` is given only those (in
   * order; the others are passed like events it did nothing with), and the store may hand the others
   * over without parsing their data (`parseOnly`).
   */
  types?: readonly string[];
}

/**
 * A side effect driven by the event store's global order, durably: it reads the events after its
 * checkpoint (kept in the read store), hands each to `handle`, and moves the checkpoint past an event
 * once `handle` acted on it (and past the others once per batch). `handle` throwing keeps the
 * checkpoint before that event: it is tried again after `retryMs`. A new follower starts at the head
 * of the store (what was written before it existed is not its business). At least once: a crash
 * between an action and its checkpoint repeats that one action, so actions must be idempotent.
 */
export abstract class CheckpointedFollower {
  protected readonly logger: Logger;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private position: string | null = null;
  /** The position last written as the checkpoint, and when (Date.now()). */
  private written: string | null = null;
  private writtenAt = 0;
  private readonly waiters: { position: string; resolve: () => void }[] = [];
  /** The lease it runs under: its checkpoints carry the fence, and it stops acting once the lease is no longer valid. */
  private lease: FollowerLease | null = null;

  protected constructor(
    protected readonly events: EventStore,
    protected readonly store: ReadStore,
    private readonly follower: FollowerOptions,
    loggerName: string,
  ) {
    this.logger = new Logger(loggerName);
    this.types = follower.types ? new Set(follower.types) : undefined;
  }

  private readonly types: ReadonlySet<string> | undefined;

  /** Acts on one event; true when it did something (the checkpoint then moves past it at once). */
  protected abstract handle(event: RecordedEvent): Promise<boolean>;

  get isRunning(): boolean {
    return this.running;
  }

  async start(lease: FollowerLease | null = null): Promise<void> {
    if (this.running) return;
    this.lease = lease;
    const checkpoint = await this.store.getCheckpoint(this.follower.name);
    if (checkpoint === null) {
      // Head first, then the reads after it: nothing appended from here on can fall behind the position.
      const head = (await this.events.headPosition()) ?? BEFORE_FIRST_POSITION;
      await this.store.commit([], { name: this.follower.name, position: head }, this.lease?.fence);
      this.position = head;
    } else this.position = checkpoint;
    this.written = this.position;
    this.writtenAt = Date.now();
    this.running = true;
    this.unsubscribe = this.events.onAppended(() => this.wake?.());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
    this.loop = null;
    // Where it got to, so that the next start does not pass those events again.
    if (this.position !== null && this.position !== this.written) await this.writeCheckpoint(this.position).catch(() => undefined);
  }

  private checkpointDue(): boolean {
    return Date.now() - this.writtenAt >= (this.follower.checkpointEveryMs ?? 1000);
  }

  private async writeCheckpoint(position: string): Promise<void> {
    await this.store.commit([], { name: this.follower.name, position }, this.lease?.fence);
    this.written = position;
    this.writtenAt = Date.now();
  }

  /** Resolves once every event up to `position` has been handled (tests). */
  waitFor(position: string): Promise<void> {
    if (isAtOrAfter(this.position, position)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  private async run(): Promise<void> {
    const { name, pollMs } = this.follower;
    const graceMs = this.follower.graceMs ?? 0;
    let graced: string | null = null;
    while (this.running) {
      let batch: RecordedEvent[] = [];
      try {
        batch = await this.events.readAll({ after: this.position, maxCount: 100, parseOnly: this.types });
        if (batch.length && graceMs > 0) {
          if (!isAtOrAfter(graced, batch[0].position)) {
            // First sight of these events: give the inline step its time, then read them again.
            graced = batch[batch.length - 1].position;
            await this.sleep(graceMs, false);
            continue;
          }
          // Only what was seen before the grace; what came since waits for its own.
          batch = batch.filter((e) => isAtOrAfter(graced, e.position));
        }
        for (const event of batch) {
          if (!this.running) return;
          // The lease may have lapsed (a frozen process resumed): act no more; the lease manager stops the follower.
          if (this.lease && !this.lease.valid()) return;
          if ((!this.types || this.types.has(event.type)) && (await this.handle(event))) await this.writeCheckpoint(event.position);
          this.position = event.position;
          this.release();
        }
        // Past the events that needed nothing: at most every checkpointEveryMs while events keep coming.
        if (batch.length && this.position && this.position !== this.written && this.checkpointDue()) {
          await this.writeCheckpoint(this.position);
        }
      } catch (err) {
        // The checkpoint has not moved past the failing event: it is tried again after a pause.
        this.logger.error({ msg: `${name} follower failed; will retry`, err: String((err as Error)?.stack ?? err) });
        await this.sleep(this.follower.retryMs ?? pollMs * 5, false);
        continue;
      }
      if (batch.length === 0) {
        // Caught up: where it got to is written once its time has come (the poll brings it back here).
        if (this.position !== null && this.position !== this.written && this.checkpointDue()) {
          try {
            await this.writeCheckpoint(this.position);
          } catch (err) {
            this.logger.error({ msg: `${name} follower could not write its checkpoint; will retry`, err: String((err as Error)?.stack ?? err) });
          }
        }
        this.release();
        await this.sleep(pollMs, true);
      }
    }
  }

  private release(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      if (isAtOrAfter(this.position, this.waiters[i].position)) {
        this.waiters[i].resolve();
        this.waiters.splice(i, 1);
      }
    }
  }

  /** Sleeps `ms`; an append wakes it early only when `wakeable` (never during the grace or a retry pause, except to stop). */
  private sleep(ms: number, wakeable: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        if (!wakeable && this.running) return;
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
