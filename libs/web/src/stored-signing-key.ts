import { randomBytes } from 'node:crypto';
import { type EventStore, WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import { newEventUuid } from '#shared/ids.js';

/**
 * A signing key for what the pages sign (checkout tokens, portal and dashboard cookies): the value of
 * an environment variable when set, else a random 32-byte key created once in the event store (one
 * stream, written with `no_stream`, so every process of the service signs and verifies the same way).
 * Loaded once per process; a failed load is tried again on the next use.
 */
export class StoredSigningKey {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly where: { env: string | undefined; stream: string; eventType: string },
  ) {}

  get(): Promise<Buffer> {
    this.key ??= this.load().catch((error) => {
      this.key = null;
      throw error;
    });
    return this.key;
  }

  private async load(): Promise<Buffer> {
    if (this.where.env) return Buffer.from(this.where.env, 'utf8');
    for (;;) {
      const existing = await this.events.readStream(this.where.stream);
      if (existing.length > 0) return Buffer.from(String(existing[0].data.key), 'base64');
      try {
        const key = randomBytes(32).toString('base64');
        await this.events.append(this.where.stream, [{ id: newEventUuid(), type: this.where.eventType, data: { key }, metadata: { occurred_at: new Date(0).toISOString() } }], 'no_stream');
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
  }
}
