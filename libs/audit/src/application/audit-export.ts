// Each event as stored, as hashed (personal data stays ciphertext: docs/personal-data.md).
import { storedEventStore } from '#customers/personal-data/personal-data-event-store.js';
import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { FEED_COLLECTION, type FeedEntry } from '#events/read-models/event.read-model.js';
import { CLOCK, type Clock } from '#shared/clock.js';
import { DomainError, invalidParam, notFound } from '#shared/errors.js';
import { eventIdFromUuid, uuidFromEventId } from '#shared/ids.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { AuditChain } from '../domain/audit-chain.port.js';
import { canonicalEvent, type ChainEntry } from '../domain/chain.js';
import type { SignedHead } from '../domain/signed-head.js';
import type { KeySuccession } from '../domain/key-succession.js';
import { AuditLog, headObject } from './audit-log.js';
import { MerkleProver } from './merkle-prover.js';

/** The export's format (docs/audit.md §6); the verifier (scripts/verify-audit-export.mjs) reads this version. */
export const EXPORT_FORMAT = 'audit-export';
export const EXPORT_VERSION = 1;

export type ExportScope = { type: 'account' } | { type: 'customer' | 'subscription'; id: string };

/** `from` and `to`: ISO 8601 times (from inclusive, to exclusive, on the event's time) or evt_ ids (both inclusive). */
export interface ExportRange {
  from?: string;
  to?: string;
}

/**
 * How the exported events are tied to the signed head at the end:
 * - `chain`: the account's whole chain, entries 0 … size−1 of the head; the verifier walks the links
 *   from 64 zeros to the head's chain_hash and recomputes its merkle_root.
 * - `merkle`: a subset (a customer, a subscription, a range); each event carries its RFC 6962
 *   inclusion proof against the head's merkle_root.
 */
export type ExportTie = 'chain' | 'merkle';

/** An export checked and fixed before its first byte: errors are answered as errors, not in the stream. */
export interface PreparedExport {
  account: string;
  scope: ExportScope;
  range: { from: string | null; to: string | null };
  head: SignedHead;
  /** The key succession statements, oldest first: from an earlier key an auditor trusts to the head's key. */
  successions: KeySuccession[];
  tie: ExportTie;
  /** Entry seqs [fromSeq, toSeq) to export (from evt_ bounds and the head). */
  fromSeq: number;
  toSeq: number;
  /** Event times [fromTime, toTime) in ms, from ISO bounds. */
  fromTime: number | null;
  toTime: number | null;
  exportedAt: string;
}

const PAGE = 500;
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * Exports an account's audit log, or a customer's or a subscription's part of it, as JSON Lines for an
 * auditor to check offline (docs/audit.md §6, scripts/verify-audit-export.mjs): a header, one line per
 * event exactly as hashed with its chain entry (and, for a subset, its inclusion proof), and the
 * signed head that covers them. Streamed: the chain, the log and the feed are read in pages.
 */
@Injectable()
export class AuditExport {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly reads: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  private get chain(): AuditChain {
    if (!this.events.auditChain) throw new DomainError('audit_unavailable', `The ${this.events.kind} event store keeps no audit chain here (docs/audit.md)`, null, 501);
    return this.events.auditChain;
  }

  async prepare(account: string, scope: ExportScope, range: ExportRange = {}): Promise<PreparedExport> {
    const chain = this.chain;
    let fromSeq = 0;
    let toSeq = Number.MAX_SAFE_INTEGER;
    let fromTime: number | null = null;
    let toTime: number | null = null;
    for (const side of ['from', 'to'] as const) {
      const value = range[side];
      if (value === undefined || value === '') continue;
      if (value.startsWith('evt_')) {
        const uuid = uuidFromEventId(value);
        const entry = uuid ? await chain.chainEntry(uuid) : null;
        if (!entry || entry.account !== account) throw invalidParam(side, `${side}: no event ${value} in this account's log`);
        if (side === 'from') fromSeq = entry.seq;
        else toSeq = entry.seq + 1;
      } else {
        const ms = ISO.test(value) ? Date.parse(value) : NaN;
        if (Number.isNaN(ms)) throw invalidParam(side, `${side} must be an ISO 8601 time (2026-01-31T00:00:00Z) or an event id (evt_…)`);
        if (side === 'from') fromTime = ms;
        else toTime = ms;
      }
    }
    if (scope.type !== 'account') {
      const [any] = await this.reads.find<FeedEntry>(FEED_COLLECTION, { where: { _account: account, is_test: [false, true], [`_${scope.type}`]: scope.id }, orderBy: { field: '_seq', direction: 'asc' }, limit: 1 });
      if (!any) throw notFound(scope.type, scope.id, scope.type);
    }
    // The head that covers the chain as it stands now: the latest signed one, or one signed now.
    const current = await chain.chainHead(account);
    let head = await this.audit.latest(account);
    if (!head || head.size < current.size) head = await this.audit.sign(account);
    const whole = scope.type === 'account' && !range.from && !range.to;
    return {
      account,
      scope,
      range: { from: range.from || null, to: range.to || null },
      head,
      successions: await this.audit.successions(),
      tie: whole ? 'chain' : 'merkle',
      fromSeq,
      toSeq: Math.min(toSeq, head.size),
      fromTime,
      toTime,
      exportedAt: this.clock.now().toISOString(),
    };
  }

  /** The export's lines (each without its newline). A failure after the header ends it with an `error` line. */
  async *lines(p: PreparedExport): AsyncGenerator<string> {
    yield JSON.stringify({
      kind: 'header',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      account: p.account,
      scope: { type: p.scope.type, id: p.scope.type === 'account' ? p.account : p.scope.id },
      range: p.range,
      tie: p.tie,
      tree_size: p.head.size,
      merkle_root: p.head.merkle_root,
      exported_at: p.exportedAt,
      key_id: p.head.key_id,
      algorithm: 'Ed25519',
    });
    let count = 0;
    try {
      const seeker = new EventSeeker(storedEventStore(this.events));
      const prover = p.tie === 'merkle' ? new MerkleProver(async (from, n) => (await this.chain.readChain(p.account, from, Math.min(n, PAGE))).map((e) => e.event_hash), p.head.size) : null;
      for await (const { entry, before } of this.entries(p)) {
        const event = await seeker.at(entry.position, before);
        if (!event || event.id !== entry.event_id) throw new Error(`the event ${eventIdFromUuid(entry.event_id)} (entry ${entry.seq}) is not in the log: run npm run cli -- audit verify`);
        const time = event.metadata.occurred_at ? Date.parse(event.metadata.occurred_at) : NaN;
        if (p.fromTime !== null && !(time >= p.fromTime)) continue;
        if (p.toTime !== null && !(time < p.toTime)) continue;
        const chain = JSON.stringify({ seq: entry.seq, event_hash: entry.event_hash, prev: entry.prev, chain_hash: entry.chain_hash });
        const proof = prover ? `,"proof":${JSON.stringify({ leaf_index: entry.seq, tree_size: p.head.size, audit_path: await prover.prove(entry.seq) })}` : '';
        count += 1;
        // The event exactly as hashed: its RFC 8785 canonical JSON.
        yield `{"kind":"event","event":${canonicalEvent(event)},"chain":${chain}${proof}}`;
      }
    } catch (error) {
      yield JSON.stringify({ kind: 'error', message: error instanceof Error ? error.message : String(error), events: count });
      return;
    }
    yield JSON.stringify({ kind: 'signed_head', signed_head: headObject(p.head), events: count, key_successions: p.successions });
  }

  /** The entries to export in seq order, each with the position of the account's entry before it (null for the first). */
  private async *entries(p: PreparedExport): AsyncGenerator<{ entry: ChainEntry; before: string | null }> {
    const chain = this.chain;
    if (p.scope.type === 'account') {
      let before: string | null = p.fromSeq > 0 ? ((await chain.readChain(p.account, p.fromSeq - 1, 1))[0]?.position ?? null) : null;
      for (let seq = p.fromSeq; seq < p.toSeq; ) {
        const page = await chain.readChain(p.account, seq, Math.min(PAGE, p.toSeq - seq));
        if (page.length === 0) break;
        for (const entry of page) {
          yield { entry, before };
          before = entry.position;
        }
        seq = page[page.length - 1].seq + 1;
      }
      return;
    }
    // A customer's or a subscription's events: those the feed files under it (the events its history
    // and GET /v1/events?customer= show), in log order.
    const field = `_${p.scope.type}`;
    for (let after: { value: string; id: string } | undefined; ; ) {
      const page = await this.reads.find<FeedEntry>(FEED_COLLECTION, { where: { _account: p.account, is_test: [false, true], [field]: p.scope.id }, orderBy: { field: '_seq', direction: 'asc' }, ...(after ? { after } : {}), limit: PAGE });
      if (page.length === 0) return;
      after = { value: page[page.length - 1]._seq, id: page[page.length - 1].id };
      for (const item of page) {
        const uuid = uuidFromEventId(item.id);
        const entry = uuid ? await chain.chainEntry(uuid) : null;
        if (!entry || entry.account !== p.account || entry.seq < p.fromSeq || entry.seq >= p.toSeq) continue;
        const before = entry.seq > 0 ? ((await chain.readChain(p.account, entry.seq - 1, 1))[0]?.position ?? null) : null;
        yield { entry, before };
      }
    }
  }
}

/**
 * Finds events by position in the log, reading it forward in pages (the port reads the log by
 * position only): a target further on than what was read is reached by jumping to the position of
 * the account's entry before it, so the read skips what lies before.
 */
class EventSeeker {
  private page: RecordedEvent[] = [];
  private index = 0;
  private after: string | null = null;

  constructor(private readonly events: EventStore) {}

  async at(position: string, before: string | null): Promise<RecordedEvent | null> {
    for (;;) {
      while (this.index < this.page.length) {
        const event = this.page[this.index];
        if (event.position < position) {
          this.index += 1;
          continue;
        }
        return event.position === position ? event : null;
      }
      if (before !== null && (this.after === null || before > this.after)) this.after = before;
      this.page = await storedEventStore(this.events).readAll({ after: this.after, maxCount: PAGE });
      this.index = 0;
      if (this.page.length === 0) return null;
      this.after = this.page[this.page.length - 1].position;
    }
  }
}
