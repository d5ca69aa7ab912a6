import { Logger } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '../../../event-store/src/event-store.port.js';
import { isAtOrAfter } from '../../../event-store/src/positions.js';
import type { ReadStore } from '../../../read-store/src/read-store.port.js';
import type { CommandContext } from '../../../platform/src/command-context.js';

/** The collection events invoicing acts on, and what it does with each (every action is idempotent). */
export const INVOICING_EVENT_TYPES = ['collection.created', 'collection.paid', 'collection.voided', 'collection.payment_applied'] as const;
export type InvoicingEventType = (typeof INVOICING_EVENT_TYPES)[number];

export interface InvoicingFollowerHandler {
  /** Checkpoint name in the read store. */
  name: string;
  /** Acts on one collection event (its data: `payment_applied` names the receipt and amount); throws to be retried (the checkpoint stays before it). */
  handle(type: InvoicingEventType, ctx: CommandContext, collectionId: string, data: Record<string, unknown>): Promise<void>;
}

/**
 * Invoicing driven by the durable event, not only by the request that wrote it: the service issues a
 * collection's invoice inline right after the write (so the answer already shows it), and this
 * follower of the event store's global order makes it crash-safe — it reads every
 * `collection.created` / `collection.paid` / `collection.voided` / `collection.payment_applied` after
 * its checkpoint (kept in the read store) and runs the same idempotent step
 * (`Invoicing.collectionCreated|Paid|Voided|registeredPaymentApplied`: the
 * invoice id is attached to the collection's stream once, the invoice is created once, issued once
 * per document with the provider's idempotency key, each payment recorded once by its id). A process
 * that stopped between the collection's write and its invoice is mended when the follower next runs;
 * an inline step that already ran makes the follower's a no-op.
 *
 * `graceMs`: the follower acts on an event only once that long has passed since it first saw it, so
 * that it normally finds the inline step done (and writes nothing) rather than racing it. A failing
 * step is retried (the checkpoint does not pass it) after `retryMs`, up to `maxAttempts` (5) times,
 * then logged and passed (one poisoned event must not stop every later invoice). A provider failure
 * is not a failure here: it is recorded on the invoice and retried on the invoice's own deadline.
 */
export class InvoicingFollower {
  private readonly logger = new Logger('invoicing');
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private unsubscribe: (() => void) | null = null;
  private position: string | null = null;
  private readonly waiters: { position: string; resolve: () => void }[] = [];
  private failing: { position: string; attempts: number } | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly store: ReadStore,
    private readonly handler: InvoicingFollowerHandler,
    private readonly options: { pollMs: number; graceMs: number; retryMs?: number; maxAttempts?: number },
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const checkpoint = await this.store.getCheckpoint(this.handler.name);
    if (checkpoint === null) {
      // A new follower starts at the head: collections written before it existed were invoiced inline.
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
    this.loop = null;
  }

  /** Resolves once every event up to `position` has been handled (tests). */
  waitFor(position: string): Promise<void> {
    if (isAtOrAfter(this.position, position)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  private async run(): Promise<void> {
    let graced: string | null = null;
    while (this.running) {
      let batch: RecordedEvent[] = [];
      try {
        batch = await this.events.readAll({ after: this.position, maxCount: 100 });
        if (batch.length && this.options.graceMs > 0) {
          if (!isAtOrAfter(graced, batch[0].position)) {
            // First sight of these events: give the inline step its time, then read them again.
            graced = batch[batch.length - 1].position;
            await this.sleep(this.options.graceMs, false);
            continue;
          }
          // Only what was seen before the grace; what came since waits for its own.
          batch = batch.filter((e) => isAtOrAfter(graced, e.position));
        }
        for (const event of batch) {
          if (!this.running) return;
          const collectionId = (event.data as { id?: unknown }).id;
          const accountId = event.metadata.account_id;
          if ((INVOICING_EVENT_TYPES as readonly string[]).includes(event.type) && typeof collectionId === 'string' && accountId) {
            const ctx: CommandContext = {
              accountId,
              mode: event.metadata.mode === 'live' ? 'live' : 'test',
              requestId: null,
              idempotencyKey: null,
              causationId: event.id,
              correlationId: event.metadata.correlation_id ?? null,
            };
            try {
              await this.handler.handle(event.type as InvoicingEventType, ctx, collectionId, event.data);
            } catch (err) {
              // Poison guard: one event that keeps failing must not hold up every later collection's invoice.
              if (this.failing?.position !== event.position) this.failing = { position: event.position, attempts: 0 };
              if (++this.failing.attempts < (this.options.maxAttempts ?? 5)) throw err;
              this.logger.error({ msg: 'invoicing follower skips an event that kept failing', event: event.id, type: event.type, collection: collectionId, err: String(err) });
            }
            await this.store.commit([], { name: this.handler.name, position: event.position });
          }
          this.position = event.position;
          this.release();
        }
        if (batch.length && this.position) await this.store.commit([], { name: this.handler.name, position: this.position });
      } catch (err) {
        // The checkpoint has not moved past the failing event: it is tried again after a pause.
        this.logger.error({ msg: 'invoicing follower failed; will retry', err: String((err as Error)?.stack ?? err) });
        await this.sleep(this.options.retryMs ?? this.options.pollMs * 5, false);
        continue;
      }
      if (batch.length === 0) {
        if (this.position === null) this.position = await this.events.headPosition();
        this.release();
        await this.sleep(this.options.pollMs, true);
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
