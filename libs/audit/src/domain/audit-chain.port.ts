import type { ChainEntry, ChainHead } from './chain.js';

/**
 * Reading an event store's audit chain (docs/audit.md). An adapter that keeps the chain exposes it
 * as its `auditChain` (libs/event-store/src/event-store.port.ts): the SQLite store writes it in the
 * append's own transaction; on EventStoreDB (no multi-stream transaction) a chaining follower writes
 * it right after (libs/audit/src/follower-chain.ts, its window in docs/audit.md).
 */
export interface AuditChain {
  /** The account's entries from `fromSeq` (inclusive), in seq order, at most `limit`. */
  readChain(account: string, fromSeq: number, limit: number): Promise<ChainEntry[]>;
  /** Where the account's chain stands (size 0 and GENESIS when it has none). */
  chainHead(account: string): Promise<ChainHead>;
  /** Every account with a chain, in order. */
  chainAccounts(): Promise<string[]>;
  /** The entry of one event (its stored UUID), or null when it is not chained (yet). */
  chainEntry(eventId: string): Promise<ChainEntry | null>;
}
