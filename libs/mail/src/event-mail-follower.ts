import { Logger } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '../../event-store/src/event-store.port.js';
import type { ReadStore } from '../../read-store/src/read-store.port.js';
import type { MailMessage, MailPort } from './mail.port.js';
import { isAtOrAfter } from '../../event-store/src/positions.js';

export interface EventMailHandler {
  /** Checkpoint name in the read store (e.g. `mail:collections`). */
  name: string;
  types: string[];
  /** The message an event sends, or null (nothing to tell, no address). */
  messageFor(event: RecordedEvent): Promise<MailMessage | null>;
}

/**
 * Sends e-mail driven by events, durably: it follows the event store's global order after its
 * checkpoint (kept in the read store) and moves the checkpoint past each event once its message is
 * handed to the mail port. The promise: every event is mailed at least once; a crash between the
 * hand-over and the checkpoint resends that one message at the next start (at most one duplicate per
 * crash; none with the outbox, whose message id derives from the event). A new follower starts at the
 * head of the store: events written before mail existed are not mailed.
 */
export class EventMailFollower {
  private readonly logger = new Logger('mail');
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private position: string | null = null;
  private readonly waiters: { position: string; resolve: () => void }[] = [];

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly mail: MailPort,
    private readonly handler: EventMailHandler,
    private readonly pollMs = 1000,
  ) {}

  async start(): Promise<void> {
    const checkpoint = await this.store.getCheckpoint(this.handler.name);
    if (checkpoint === null) {
      const head = await this.events.headPosition();
      if (head !== null) await this.store.commit([], { name: this.handler.name, position: head });
      this.position = head;
    } else this.position = checkpoint;
    this.running = true;
    this.unsubscribe = this.events.onAppended(() => this.wake?.());
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.wake?.();
    await this.loop;
  }

  /** Resolves once every event up to `position` has been handled (tests). */
  waitFor(position: string): Promise<void> {
    if (isAtOrAfter(this.position, position)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  private async run(): Promise<void> {
    while (this.running) {
      let batch: RecordedEvent[] = [];
      try {
        batch = await this.events.readAll({ after: this.position, maxCount: 100 });
        for (const event of batch) {
          if (!this.running) return;
          if (this.handler.types.includes(event.type)) {
            const message = await this.handler.messageFor(event);
            if (message) await this.mail.send(message);
            // Past a mailed event at once: a crash resends at most this message.
            await this.store.commit([], { name: this.handler.name, position: event.position });
          }
          this.position = event.position;
          this.release();
        }
        // Past the events that mail nothing, once per batch.
        if (batch.length && this.position) await this.store.commit([], { name: this.handler.name, position: this.position });
      } catch (err) {
        // The checkpoint has not moved past the failing event: it is tried again on the next round.
        this.logger.error({ msg: 'mail follower failed; will retry', err: String((err as Error)?.stack ?? err) });
        batch = [];
        await this.sleep(this.pollMs * 5);
        continue;
      }
      if (batch.length === 0) {
        if (this.position === null) this.position = await this.events.headPosition();
        this.release();
        await this.sleep(this.pollMs);
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

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }
}
