import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { eventIdFromUuid } from '#shared/ids.js';
import { chainAccount, type ChainEntry, type ChainHead, type ChainProblem, checkEntry, emptyHead, isChained } from '../domain/chain.js';

/** A head the service signed (or any head the caller trusts): the recomputed chain must pass through it. */
export interface TrustedHead {
  account: string;
  size: number;
  chain_hash: string;
}

export type VerifyProblem = ChainProblem | { kind: 'head_mismatch'; account: string; size: number; detail: string };

export interface VerifyReport {
  ok: boolean;
  /** Chained events whose hash and entry were checked (up to the problem, when there is one). */
  events: number;
  accounts: number;
  problem: VerifyProblem | null;
}

const PAGE = 500;

/** One account's place in the pass: the head verified so far and the entries read ahead. */
interface AccountPass {
  head: ChainHead;
  ahead: ChainEntry[];
  /** The chain hash at the size of the account's trusted head, once passed. */
  atTrusted?: string;
}

/**
 * Recomputes every chained event's hash from the store and walks each account's chain beside the
 * log (docs/audit.md): stops at the first event whose hash is not its entry's (altered), the first
 * entry whose event is gone (deleted), an event with no entry (slipped in), a broken link or a gap
 * in an account's seqs, and, given trusted (signed) heads, a chain that does not pass through them
 * (a rewritten or cut tail). Memory: a page of entries per account.
 */
export async function verifyAuditChain(events: EventStore, options: { account?: string; trustedHeads?: readonly TrustedHead[] } = {}): Promise<VerifyReport> {
  const chain = events.auditChain;
  if (!chain) throw new Error(`the ${events.kind} event store keeps no audit chain`);
  const passes = new Map<string, AccountPass>();
  const pass = (account: string) => {
    let p = passes.get(account);
    if (!p) passes.set(account, (p = { head: emptyHead(account), ahead: [] }));
    return p;
  };
  const trusted = new Map((options.trustedHeads ?? []).map((h) => [h.account, h]));
  let checked = 0;
  const report = (problem: VerifyProblem | null): VerifyReport => ({ ok: problem === null, events: checked, accounts: passes.size, problem });

  const nextEntry = async (p: AccountPass): Promise<ChainEntry | undefined> => {
    if (p.ahead.length === 0) p.ahead = await chain.readChain(p.head.account, p.head.size, PAGE);
    return p.ahead[0];
  };
  /** Checks `entry` (the account's next) against `event` (null: gone) and moves on; the problem if any. */
  const step = (p: AccountPass, entry: ChainEntry, event: RecordedEvent | null): ChainProblem | null => {
    const problem = checkEntry(p.head, entry, event);
    if (problem) return problem;
    p.ahead.shift();
    p.head = { account: p.head.account, size: p.head.size + 1, chain_hash: entry.chain_hash };
    if (trusted.get(p.head.account)?.size === p.head.size) p.atTrusted = p.head.chain_hash;
    return null;
  };

  for (let after: string | null = null; ; ) {
    const page = await events.readAll({ after, maxCount: PAGE });
    if (page.length === 0) break;
    after = page[page.length - 1].position;
    for (const event of page) {
      if (!isChained(event.streamId)) continue;
      const account = chainAccount(event.metadata);
      if (options.account && account !== options.account) continue;
      const p = pass(account);
      for (;;) {
        const entry = await nextEntry(p);
        if (entry && entry.event_id === event.id) {
          const problem = step(p, entry, event);
          if (problem) return report(problem);
          checked += 1;
          break;
        }
        if (entry && entry.position < event.position) {
          // The entry's event was passed without being seen: it is gone from the log.
          return report(step(p, entry, null));
        }
        // No entry for this event here: chained under another account (its metadata changed) or never.
        const elsewhere = await chain.chainEntry(event.id);
        if (elsewhere) return report(checkEntry({ account: elsewhere.account, size: elsewhere.seq, chain_hash: elsewhere.prev }, elsewhere, event));
        return report({ kind: 'event_unchained', event_id: event.id, stream: event.streamId, revision: event.revision, account });
      }
    }
  }
  // Entries left after the last event (their events gone), and chains with no event left at all.
  const accounts = options.account ? [options.account] : await chain.chainAccounts();
  for (const account of accounts) {
    const p = pass(account);
    const entry = await nextEntry(p);
    if (entry) return report(step(p, entry, null));
  }
  for (const [account, head] of trusted) {
    if (options.account && account !== options.account) continue;
    const p = pass(account);
    if (p.head.size < head.size) return report({ kind: 'head_mismatch', account, size: head.size, detail: `the signed head has ${head.size} entries, the chain ${p.head.size}` });
    if (p.atTrusted !== head.chain_hash) return report({ kind: 'head_mismatch', account, size: head.size, detail: 'the chain does not pass through the signed head’s chain_hash' });
  }
  return report(null);
}

/** One line for a person: what matched, or the first thing that did not. */
export function describeVerifyReport(r: VerifyReport): string {
  if (!r.problem) return `all ${r.events} events of ${r.accounts} accounts match`;
  const p = r.problem;
  const evt = (id: string) => eventIdFromUuid(id);
  switch (p.kind) {
    case 'event_altered':
      return `MISMATCH: event ${evt(p.event_id)} (stream ${p.stream}, revision ${p.revision}; ${p.account} entry ${p.seq}) does not match its hash: stored ${p.stored_hash}, recomputed ${p.computed_hash}`;
    case 'event_missing':
      return `MISSING: event ${evt(p.event_id)} (${p.account} entry ${p.seq}, position ${p.position}) is chained but no longer in the log`;
    case 'event_unchained':
      return `UNCHAINED: event ${evt(p.event_id)} (stream ${p.stream}, revision ${p.revision}, ${p.account}) has no entry in the chain`;
    case 'entry_altered':
      return `CHAIN ALTERED: ${p.account} entry ${p.seq} (event ${evt(p.event_id)}): ${p.detail}`;
    case 'entry_missing':
      return `CHAIN GAP: ${p.account} entry ${p.seq} is missing (${p.detail})`;
    case 'head_mismatch':
      return `SIGNED HEAD MISMATCH: ${p.account} at size ${p.size}: ${p.detail}`;
  }
}
