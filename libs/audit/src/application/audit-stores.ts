import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { type Config, eventStoreFile } from '#platform/config.js';
import { createEventStore, createReadStore } from '#platform/stores.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { AUDIT_COLLECTIONS, type AuditKeyDoc, type SignedHeadDoc } from './audit-log.js';
import { headUntrusted, trustedKeyring } from '../domain/key-succession.js';
import type { TrustedHead } from './verify-chain.js';

/**
 * The stores `npm run cli -- audit verify` reads, without the service: the embedded event store
 * opened to read only (inline, nothing chained at open: the verifier sees the chain as stored), and
 * the read store for the signed heads, each trusted only when signed by a key reachable through the
 * key succession statements from a trusted key (given, or the installation's first key) before the
 * verifier holds the chain to it.
 */
export async function openAuditStores(config: Config, options: { trustedKeyPem?: string } = {}): Promise<{ events: EventStore; trustedHeads(account?: string): Promise<TrustedHead[]>; close(): Promise<void> }> {
  const events = config.eventStoreUrl ? createEventStore(config) : new SqliteEventStore(eventStoreFile(config), { writer: 'inline', auditChain: false });
  const reads: ReadStore = createReadStore({ ...config, sqliteWriter: 'inline' });
  await reads.ensureCollections(AUDIT_COLLECTIONS);
  return {
    events,
    async trustedHeads(account) {
      const keys = await reads.find<AuditKeyDoc>('audit_keys', { orderBy: { field: 'id', direction: 'asc' }, limit: 10_000 });
      if (keys.length === 0 && !options.trustedKeyPem) return [];
      // Trusted: the key given, else the installation's first key (the one no statement names); then every successor it reaches.
      const first = keys.find((k) => !k.succession) ?? keys[0];
      const ring = trustedKeyring(options.trustedKeyPem ?? first.public_key_pem, keys.flatMap((k) => (k.succession ? [k.succession] : [])));
      const accounts = account ? [account] : (await events.auditChain?.chainAccounts()) ?? [];
      const heads: TrustedHead[] = [];
      for (const a of accounts) {
        const [head] = await reads.find<SignedHeadDoc>('audit_heads', { where: { account: a }, orderBy: { field: 'size', direction: 'desc' }, limit: 1 });
        if (!head) continue;
        const why = headUntrusted(head, ring);
        if (why) throw new Error(`the signed head of ${a} at size ${head.size} is not trusted: ${why}`);
        heads.push({ account: a, size: head.size, chain_hash: head.chain_hash });
      }
      return heads;
    },
    async close() {
      await events.close();
      await reads.close();
    },
  };
}
