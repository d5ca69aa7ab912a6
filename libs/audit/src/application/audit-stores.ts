import type { EventStore } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { type Config, eventStoreFile } from '#platform/config.js';
import { createEventStore, createReadStore } from '#platform/stores.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { createPublicKey } from 'node:crypto';
import { AUDIT_COLLECTIONS, type AuditKeyDoc, type SignedHeadDoc } from './audit-log.js';
import { verifySignedHead } from '../domain/signed-head.js';
import type { TrustedHead } from './verify-chain.js';

/**
 * The stores `npm run cli -- audit verify` reads, without the service: the embedded event store
 * opened to read only (inline, nothing chained at open: the verifier sees the chain as stored), and
 * the read store for the signed heads, whose signatures are checked with the kept public key before
 * the verifier trusts them.
 */
export async function openAuditStores(config: Config): Promise<{ events: EventStore; trustedHeads(account?: string): Promise<TrustedHead[]>; close(): Promise<void> }> {
  const events = config.eventStoreUrl ? createEventStore(config) : new SqliteEventStore(eventStoreFile(config), { writer: 'inline', auditChain: false });
  const reads: ReadStore = createReadStore({ ...config, sqliteWriter: 'inline' });
  await reads.ensureCollections(AUDIT_COLLECTIONS);
  return {
    events,
    async trustedHeads(account) {
      const key = await reads.get<AuditKeyDoc>('audit_keys', 'signing');
      if (!key) return [];
      const publicKey = createPublicKey(key.public_key_pem);
      const accounts = account ? [account] : (await events.auditChain?.chainAccounts()) ?? [];
      const heads: TrustedHead[] = [];
      for (const a of accounts) {
        const [head] = await reads.find<SignedHeadDoc>('audit_heads', { where: { account: a }, orderBy: { field: 'size', direction: 'desc' }, limit: 1 });
        if (!head) continue;
        if (!verifySignedHead(head, publicKey)) throw new Error(`the signed head of ${a} at size ${head.size} does not verify with the public key ${key.key_id}`);
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
