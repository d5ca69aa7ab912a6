/**
 * The audit chain (docs/audit.md): every chained event's hash (SHA-256 over its RFC 8785 canonical
 * JSON) is linked into its account's chain — entry n commits to entry n−1 — so that an event edited,
 * removed or slipped in afterwards no longer matches. Pure functions; the hashing itself is in
 * chain-core.mjs (shared with the SQLite writer thread, which chains inside the append's transaction).
 */
import { chainAccount, chainHash, eventHash, GENESIS, type HashableEvent, isChained } from '../chain-core.mjs';

export { canonicalEvent, chainAccount, chainHash, eventHash, GENESIS, type HashableEvent, isChained, PLATFORM_ACCOUNT, UNCHAINED_STREAM_PREFIXES } from '../chain-core.mjs';

/** One entry of an account's chain, as stored (the `chain` table, the `$audit-chain-…` streams). */
export interface ChainEntry {
  account: string;
  /** 0-based per account. */
  seq: number;
  /** The stored event id (UUID). */
  event_id: string;
  /** The event's global position (opaque, compares as a string). */
  position: string;
  /** SHA-256 hex of the event's canonical JSON. */
  event_hash: string;
  /** The previous entry's chain_hash, or GENESIS. */
  prev: string;
  /** SHA-256 hex of prev ‖ event_hash (bytes). */
  chain_hash: string;
}

/** Where an account's chain stands: how many entries, and the last one's chain_hash (GENESIS when none). */
export interface ChainHead {
  account: string;
  size: number;
  chain_hash: string;
}

export const emptyHead = (account: string): ChainHead => ({ account, size: 0, chain_hash: GENESIS });

/** The entry that chains `event` (at `position`) after `head`, and the head after it. */
export function chainEvent(head: ChainHead, event: HashableEvent, position: string): { entry: ChainEntry; head: ChainHead } {
  const hash = eventHash(event);
  const entry: ChainEntry = {
    account: head.account,
    seq: head.size,
    event_id: event.id,
    position,
    event_hash: hash,
    prev: head.chain_hash,
    chain_hash: chainHash(head.chain_hash, hash),
  };
  return { entry, head: { account: head.account, size: head.size + 1, chain_hash: entry.chain_hash } };
}

/** Chains events in log order from the given heads (missing accounts start empty): the entries and the heads after. */
export function chainEvents(
  events: ReadonlyArray<HashableEvent & { position: string }>,
  heads: ReadonlyMap<string, ChainHead> = new Map(),
): { entries: ChainEntry[]; heads: Map<string, ChainHead> } {
  const next = new Map(heads);
  const entries: ChainEntry[] = [];
  for (const event of events) {
    if (!isChained(event.streamId)) continue;
    const account = chainAccount(event.metadata);
    const { entry, head } = chainEvent(next.get(account) ?? emptyHead(account), event, event.position);
    entries.push(entry);
    next.set(account, head);
  }
  return { entries, heads: next };
}

/** What the verifier found wrong, at the first place it went wrong. */
export type ChainProblem =
  | { kind: 'event_altered'; event_id: string; stream: string; revision: number; account: string; seq: number; stored_hash: string; computed_hash: string }
  | { kind: 'event_missing'; event_id: string; account: string; seq: number; position: string }
  | { kind: 'event_unchained'; event_id: string; stream: string; revision: number; account: string }
  | { kind: 'entry_altered'; account: string; seq: number; event_id: string; detail: string }
  | { kind: 'entry_missing'; account: string; seq: number; detail: string };

/**
 * Checks one entry against the head before it and its event (null: no event with that id in the
 * log). The entry must follow the head (seq, prev), its chain_hash must be prev ‖ event_hash, and
 * the event's own hash, recomputed, must be the entry's.
 */
export function checkEntry(head: ChainHead, entry: ChainEntry, event: (HashableEvent & { position: string }) | null): ChainProblem | null {
  if (entry.seq !== head.size) return { kind: 'entry_missing', account: head.account, seq: head.size, detail: `the next entry is seq ${entry.seq}` };
  if (entry.prev !== head.chain_hash) return { kind: 'entry_altered', account: head.account, seq: entry.seq, event_id: entry.event_id, detail: 'prev is not the previous entry’s chain_hash' };
  if (entry.chain_hash !== chainHash(entry.prev, entry.event_hash)) {
    return { kind: 'entry_altered', account: head.account, seq: entry.seq, event_id: entry.event_id, detail: 'chain_hash is not SHA-256(prev ‖ event_hash)' };
  }
  if (!event) return { kind: 'event_missing', event_id: entry.event_id, account: head.account, seq: entry.seq, position: entry.position };
  const computed = eventHash(event);
  if (computed !== entry.event_hash || chainAccount(event.metadata) !== entry.account) {
    return { kind: 'event_altered', event_id: event.id, stream: event.streamId, revision: event.revision, account: entry.account, seq: entry.seq, stored_hash: entry.event_hash, computed_hash: computed };
  }
  return null;
}

