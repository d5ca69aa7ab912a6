import { createHash } from 'node:crypto';
import type { AppendResult, EventStore, NewEvent, RecordedEvent } from '#event-store/event-store.port.js';
import { WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import type { AuditChain } from './domain/audit-chain.port.js';
import { chainAccount, type ChainEntry, chainEvent, type ChainHead, emptyHead, isChained } from './domain/chain.js';
import { CHAIN_STREAM_PREFIX } from './chain-core.mjs';

/** The stream of an account's chain entries (one event per entry, revision = seq). */
export const chainStream = (account: string) => `${CHAIN_STREAM_PREFIX}${account}`;
/** One event per account that has a chain (the list of accounts; duplicates are harmless). */
export const CHAIN_ACCOUNTS_STREAM = `${CHAIN_STREAM_PREFIX}_accounts`;
export const CHAIN_ENTRY_TYPE = 'audit.chain_entry';
const PAGE = 500;

/** The part of an event store the follower writes with (the port's own operations only). */
type Log = Pick<EventStore, 'append' | 'readStream' | 'readAll'>;

/**
 * The audit chain of an event store without multi-stream transactions (EventStoreDB; docs/audit.md):
 * a chaining follower reads the log from where the chain ends and appends each account's entries to
 * the account's stream `audit_chain-<account>` with expected revisions (revision = seq), so two
 * followers never fork a chain (the loser re-reads and skips what is chained). The window: an event
 * is appended without its entry until the follower has passed it — every read of the chain here
 * catches up first, and the service runs `follow` where the deadline worker runs.
 */
export class FollowerAuditChain implements AuditChain {
  private heads = new Map<string, ChainHead & { position: string | null }>();
  private accounts = new Set<string>();
  private checkpoint: string | null = null;
  private loaded = false;
  private running: Promise<void> | null = null;

  constructor(private readonly log: Log) {}

  private async load(): Promise<void> {
    if (this.loaded) return;
    for (const e of await this.log.readStream(CHAIN_ACCOUNTS_STREAM)) this.accounts.add(String(e.data.account));
    for (const account of this.accounts) await this.reloadHead(account);
    this.loaded = true;
  }

  private async reloadHead(account: string): Promise<ChainHead & { position: string | null }> {
    const entries = await this.log.readStream(chainStream(account));
    const last = entries.length ? toEntry(entries[entries.length - 1]) : null;
    const head = last ? { account, size: last.seq + 1, chain_hash: last.chain_hash, position: last.position } : { ...emptyHead(account), position: null };
    this.heads.set(account, head);
    if (head.position && (!this.checkpoint || head.position > this.checkpoint)) this.checkpoint = head.position;
    return head;
  }

  /** Chains every event of the log not chained yet; one run at a time. */
  catchUp(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private async run(): Promise<void> {
    await this.load();
    for (;;) {
      const page = await this.log.readAll({ after: this.checkpoint, maxCount: PAGE });
      if (page.length === 0) return;
      for (const event of page) {
        if (isChained(event.streamId)) await this.chainOne(event);
        this.checkpoint = event.position;
      }
    }
  }

  private async chainOne(event: RecordedEvent): Promise<void> {
    const account = chainAccount(event.metadata);
    if (!this.accounts.has(account)) {
      await this.log.append(CHAIN_ACCOUNTS_STREAM, [entryEvent(`${account}`, { account }, event)], 'any');
      this.accounts.add(account);
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const head = this.heads.get(account) ?? (await this.reloadHead(account));
      if (head.position !== null && head.position >= event.position) return; // chained already (by another follower)
      const { entry } = chainEvent(head, event, event.position);
      try {
        await this.appendEntry(entry, event, head.size === 0 ? 'no_stream' : head.size - 1);
        this.heads.set(account, { account, size: entry.seq + 1, chain_hash: entry.chain_hash, position: entry.position });
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        await this.reloadHead(account); // another follower wrote: see where the chain is now
      }
    }
    throw new Error(`could not chain event ${event.id} into ${account}'s chain`);
  }

  private appendEntry(entry: ChainEntry, event: RecordedEvent, expected: number | 'no_stream'): Promise<AppendResult> {
    return this.log.append(chainStream(entry.account), [entryEvent(`${entry.account}:${entry.seq}`, { ...entry }, event)], expected);
  }

  /** Follows the log: chains on every append it hears of and every `pollMs`; returns the stop function. */
  follow(onAppended: EventStore['onAppended'], pollMs: number, onError: (error: unknown) => void): () => void {
    const tick = () => void this.catchUp().catch(onError);
    const off = onAppended(tick);
    const timer = setInterval(tick, pollMs);
    timer.unref();
    tick();
    return () => {
      off();
      clearInterval(timer);
    };
  }

  async readChain(account: string, fromSeq: number, limit: number): Promise<ChainEntry[]> {
    await this.catchUp();
    return (await this.log.readStream(chainStream(account), fromSeq)).slice(0, limit).map(toEntry);
  }

  async chainHead(account: string): Promise<ChainHead> {
    await this.catchUp();
    const h = this.heads.get(account);
    return h ? { account, size: h.size, chain_hash: h.chain_hash } : emptyHead(account);
  }

  async chainAccounts(): Promise<string[]> {
    await this.catchUp();
    return [...this.accounts].sort();
  }

  /** The entry of one event: a scan of the chains (this adapter has no index by event; proofs only). */
  async chainEntry(eventId: string): Promise<ChainEntry | null> {
    await this.catchUp();
    for (const account of this.accounts) {
      const found = (await this.log.readStream(chainStream(account))).find((e) => e.data.event_id === eventId);
      if (found) return toEntry(found);
    }
    return null;
  }
}

/** An entry as an event: a deterministic id per account and seq (a retried append is the same event), the chained event's time. */
function entryEvent(key: string, data: Record<string, unknown>, chained: RecordedEvent): NewEvent {
  return { id: uuidOf(key), type: CHAIN_ENTRY_TYPE, data, metadata: { occurred_at: chained.metadata.occurred_at } };
}

function toEntry(e: RecordedEvent): ChainEntry {
  const d = e.data as unknown as ChainEntry;
  return { account: d.account, seq: d.seq, event_id: d.event_id, position: d.position, event_hash: d.event_hash, prev: d.prev, chain_hash: d.chain_hash };
}


/** A UUID (v8 layout) derived from a key. */
function uuidOf(key: string): string {
  const h = createHash('sha256').update(`audit-chain:${key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
