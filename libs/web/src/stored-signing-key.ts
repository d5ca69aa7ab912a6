import { randomBytes } from 'node:crypto';
import type { EventStore } from '#event-store/event-store.port.js';
import type { SecretVault } from '#platform/sealing.module.js';

/**
 * A signing key for what the pages sign (checkout tokens, portal and dashboard cookies): the value of
 * an environment variable when set, else a random 32-byte key created once and kept sealed under the
 * master key (SecretVault, `sealed_secrets/signing_key:<stream>`: every process of the service signs
 * and verifies the same way; the first one kept wins). A deployment whose key was made before
 * (in plain, in the event stream `<stream>`) keeps using it: it is read from there as before.
 * Loaded once per process; a failed load is tried again on the next use.
 */
export class StoredSigningKey {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly where: { env: string | undefined; stream: string; eventType: string },
    private readonly vault: SecretVault,
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
    const legacy = await this.events.readStream(this.where.stream);
    if (legacy.length > 0) return Buffer.from(String(legacy[0].data.key), 'base64');
    const key = await this.vault.openOrCreate(`signing_key:${this.where.stream}`, this.where.eventType, () => randomBytes(32).toString('base64'));
    return Buffer.from(key, 'base64');
  }
}
