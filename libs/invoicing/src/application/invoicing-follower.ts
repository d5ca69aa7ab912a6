import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { CheckpointedFollower } from '#event-store/checkpointed-follower.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { CommandContext } from '#platform/command-context.js';

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
export class InvoicingFollower extends CheckpointedFollower {
  private failing: { position: string; attempts: number } | null = null;

  constructor(
    events: EventStore,
    store: ReadStore,
    private readonly handler: InvoicingFollowerHandler,
    private readonly options: { pollMs: number; graceMs: number; retryMs?: number; maxAttempts?: number },
  ) {
    super(events, store, { name: handler.name, pollMs: options.pollMs, graceMs: options.graceMs, retryMs: options.retryMs, types: INVOICING_EVENT_TYPES }, 'invoicing');
  }

  protected async handle(event: RecordedEvent): Promise<boolean> {
    const collectionId = (event.data as { id?: unknown }).id;
    const accountId = event.metadata.account_id;
    if (typeof collectionId !== 'string' || !accountId) return false;
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
    return true;
  }
}
