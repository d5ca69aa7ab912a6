import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { MailMessage, MailPort } from './mail.port.js';
import { CheckpointedFollower } from '#event-store/checkpointed-follower.js';

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
export class EventMailFollower extends CheckpointedFollower {
  constructor(
    events: EventStore,
    store: ReadStore,
    private readonly mail: MailPort,
    private readonly handler: EventMailHandler,
    pollMs = 1000,
  ) {
    super(events, store, { name: handler.name, pollMs, types: handler.types }, 'mail');
  }

  /** Past a mailed event at once: a crash resends at most this message. */
  protected async handle(event: RecordedEvent): Promise<boolean> {
    const message = await this.handler.messageFor(event);
    if (message) await this.mail.send(message);
    return true;
  }
}
