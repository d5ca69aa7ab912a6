import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type AppendResult, type EventStore, type ExpectedRevision, type NewEvent, type ReadAllOptions, type RecordedEvent, type StreamAppend, WrongExpectedRevisionError } from './event-store.port.js';
import { decodePosition, encodePosition } from './positions.js';
import { type AppendedRow, RecentAppends } from './recent-appends.js';
import { isStoreUnavailable } from '#shared/store-unavailable.js';
import type { AuditChain } from '#audit/domain/audit-chain.port.js';
import type { ChainEntry, ChainHead } from '#audit/domain/chain.js';
import { GENESIS, isChained, type PartPreparation, preparePart } from '#audit/chain-core.mjs';
import { BLOCK_COLUMNS, type BlockRow, blockChainHashes, CHAIN_SCHEMA, chainBacklog, chainEnd, type ChainBlock, type ChainWrites, chainWrites, decodeBlock, GENESIS_BYTES, LAST_BLOCK_SQL, migrateRowChain } from '#audit/sqlite-chain.mjs';
import { pragmaOnWriter, SqliteWriterThread, type SqliteWriterMode, type WriterErrorInfo, writerError, writerModeFor } from '#shared/sqlite-writer-thread.js';

/** How often a listened-to store checks for another connection's commits. */
const WATCH_MS = 100;
/** Groups of appends sent to the writer thread and not yet answered (see `inFlight`). */
const GROUPS_IN_FLIGHT = 2;
/** From how many gathered events an idle writer thread is sent two groups instead of one (see flushToThread). */
const SPLIT_GROUP_AT_EVENTS = 256;

/** One caller's append: one part (append) or several (appendMany), all or nothing. */
interface PendingAppend {
  parts: StreamAppend[];
  resolve: (results: AppendResult[]) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: AppendResult[] } | { error: unknown };

/** The writer thread's answer to a group: per append its [revision, seq] per part, or its error. */
interface ThreadGroupResult {
  outcomes: Array<{ ok: Array<[number, number]> } | { error: WriterErrorInfo }>;
  maxSeq: number;
}

export interface SqliteEventStoreOptions {
  /** `thread` (default for files): commits in a writer thread; `inline`: on the event loop (always for `:memory:`). */
  writer?: SqliteWriterMode;
  /** Groups of appends in flight to the writer thread (default GROUPS_IN_FLIGHT; 1: each waits for the previous answer). */
  groupsInFlight?: number;
  /** Whether appends write the audit chain (default true; false only to measure its cost). */
  auditChain?: boolean;
}

/** A row of the events table (the recent-appends window's row without its encoded position). */
type EventRow = Omit<AppendedRow, 'position'>;

/**
 * Embedded event store on SQLite (WAL, synchronous=FULL: a commit is on disk before append resolves).
 *
 * Group commit: appends that arrive in the same turn of the event loop are written in one
 * transaction (one fsync), each under its own savepoint, so one append's conflict does not
 * affect the others. A multi-stream append (appendMany) is one such append: its parts share one
 * savepoint, so a conflict on any part writes none of them.
 *
 * Writer thread (the default for a file): the group's transaction runs in a worker thread with its
 * own connection (sqlite-writer.worker.mjs), so neither its CPU nor its fsync holds up the event
 * loop; while it commits one group the next one gathers here, and each append resolves when the
 * thread answers that its group is on disk. Reads stay on this thread's connection (WAL: they see
 * every committed group).
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite';
  readonly atomicMultiStream = true;
  private readonly db: Database.Database;
  private readonly emitter = new EventEmitter();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly stmts;
  /** One transaction for the whole group, a savepoint per append. */
  private readonly writeBatch: Database.Transaction<(batch: PendingAppend[]) => Outcome[]>;
  /** While someone listens: looks every WATCH_MS whether another connection (process) committed. */
  private watchTimer: NodeJS.Timeout | null = null;
  private dataVersion = 0;
  /** The highest position listeners have been told of: another connection's commit is news only beyond it. */
  private announced = 0;
  /**
   * Commits in a writer thread (null: inline). `inFlight`: the groups sent and not yet answered, at
   * most GROUPS_IN_FLIGHT — the thread commits them one after another in the order sent, so while the
   * answer to one travels back (and waits for a busy event loop) the next is already committing.
   */
  private readonly writer: SqliteWriterThread | null;
  private inFlight = 0;
  /** The group sent last (close waits for it: answers come in the order sent). */
  private lastGroup: Promise<void> | null = null;
  private readonly groupsInFlight: number;
  /** What this instance appended last (rows as written), for the reads that follow each append. */
  private readonly recent = new RecentAppends();
  /** The audit chain's writes on this connection (inline mode), null when the chain is off. */
  private readonly chain: ChainWrites | null;
  readonly auditChain: AuditChain;

  constructor(
    readonly file: string,
    options: SqliteEventStoreOptions = {},
  ) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        event_id TEXT NOT NULL UNIQUE,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE (stream_id, revision)
      );
      CREATE TABLE IF NOT EXISTS streams (
        stream_id TEXT PRIMARY KEY,
        revision INTEGER NOT NULL
      );
      ${CHAIN_SCHEMA}
    `);
    const chainOn = options.auditChain ?? true;
    // Events stored before the chain existed are chained once, at open (none when the chain is current).
    // A chain kept in the earlier layout (a row per event) is moved into blocks first.
    if (chainOn) migrateRowChain(this.db);
    if (chainOn && !this.chainIsCurrent()) chainBacklog(this.db);
    this.chain = chainOn ? chainWrites(this.db) : null;
    this.auditChain = this.chainReader();
    this.emitter.setMaxListeners(0);
    this.writer = writerModeFor(file, options.writer) === 'thread' ? new SqliteWriterThread(file, 'events', { chain: chainOn }) : null;
    this.groupsInFlight = Math.max(1, options.groupsInFlight ?? GROUPS_IN_FLIGHT);
    const appendOne = this.db.transaction((item: PendingAppend) => item.parts.map((part) => this.appendInTransaction(part)));
    this.writeBatch = this.db.transaction((batch: PendingAppend[]) => {
      this.chain?.begin();
      const outcomes = batch.map((item): Outcome => {
        const written = this.committedInline.length;
        const chained = this.chain?.mark() ?? 0;
        try {
          return { ok: appendOne(item) };
        } catch (error) {
          this.committedInline.length = written; // rolled back with its savepoint
          this.chain?.rollbackTo(chained);
          // A full disk or an I/O error makes SQLite roll back the whole transaction: the group
          // fails as one (every append rejected, none written), never goes on outside a transaction.
          if (isStoreUnavailable(error) || !this.db.inTransaction) throw error;
          return { error };
        }
      });
      this.chain?.seal();
      return outcomes;
    });
    this.stmts = {
      streamRevision: this.db.prepare<[string], { revision: number }>('SELECT revision FROM streams WHERE stream_id = ?'),
      upsertStream: this.db.prepare(
        'INSERT INTO streams (stream_id, revision) VALUES (?, ?) ON CONFLICT(stream_id) DO UPDATE SET revision = excluded.revision',
      ),
      insertEvent: this.db.prepare(
        'INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      readStream: this.db.prepare<[string, number], EventRow>(
        'SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision',
      ),
      readAll: this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
      head: this.db.prepare<[], { seq: number | null }>('SELECT MAX(seq) AS seq FROM events'),
    };
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return (await this.appendMany([{ streamId, events, expected }]))[0];
  }

  appendMany(parts: StreamAppend[]): Promise<AppendResult[]> {
    if (parts.length === 0 || parts.some((p) => p.events.length === 0)) return Promise.reject(new Error('append needs at least one event'));
    return new Promise((resolve, reject) => {
      this.queue.push({ parts, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Why the writer thread last stopped with writes in flight (null: writing normally): /health shows it. */
  get writerFailure(): Error | null {
    return this.writer?.failure ?? null;
  }

  private flush(): void {
    if (this.writer) return this.flushToThread(this.writer);
    const batch = this.queue;
    this.queue = [];
    this.flushScheduled = false;
    let outcomes: Outcome[];
    this.committedInline = [];
    try {
      outcomes = this.writeBatch.immediate(batch);
      this.chain?.commit();
    } catch (error) {
      this.chain?.abort();
      this.committedInline = [];
      for (const item of batch) item.reject(error);
      return;
    }
    for (const [streamId, rows, revision, seq] of this.committedInline) this.remember(streamId, rows, revision, seq);
    this.committedInline = [];
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if ('ok' in outcome) item.resolve(outcome.ok);
      else item.reject(outcome.error);
    });
    if (outcomes.some((o) => 'ok' in o)) this.announce(Number(this.stmts.head.get()?.seq ?? 0));
  }

  /**
   * Sends the gathered appends to the writer thread, unless GROUPS_IN_FLIGHT are unanswered: then they
   * go when one is. A writer with nothing in flight and SPLIT_GROUP_AT_EVENTS or more events waiting
   * gets them as two groups: while it commits the first, this thread prepares the second
   * (serialisation, the chain's hashes), and then the appends the first group's answer brings; as one
   * group, each thread would sit idle while the other works (64 appenders of 7 events in a loop: 44 →
   * 54–57k events/s with the chain off, 26 → 37–39k on). A smaller queue goes whole: the second
   * group's commit would cost more than its preparation saves (HTTP writes, a few events per request,
   * measured ~8 % slower when split).
   */
  private flushToThread(writer: SqliteWriterThread): void {
    this.flushScheduled = false;
    while (this.inFlight < this.groupsInFlight && this.queue.length > 0) {
      this.sendGroup(writer, this.queue.splice(0, this.inFlight === 0 && this.groupsInFlight > 1 ? this.firstHalf() : this.queue.length));
    }
  }

  /** How many of the queued appends go in the first of two groups: those holding half its events, or all of them when it holds fewer than SPLIT_GROUP_AT_EVENTS. */
  private firstHalf(): number {
    let events = 0;
    for (const item of this.queue) for (const part of item.parts) events += part.events.length;
    if (events < SPLIT_GROUP_AT_EVENTS) return this.queue.length;
    let half = 0;
    for (let i = 0; i < this.queue.length; i++) {
      for (const part of this.queue[i].parts) half += part.events.length;
      if (half * 2 >= events) return i + 1;
    }
    return this.queue.length;
  }

  /** One group to the writer thread: one transaction, each append answered when it has committed. */
  private sendGroup(writer: SqliteWriterThread, queued: PendingAppend[]): void {
    const batch: PendingAppend[] = [];
    const items: Array<Array<[string, ExpectedRevision, string[][], PartPreparation?]>> = [];
    for (const item of queued) {
      try {
        items.push(
          item.parts.map((p) => {
            const rows = p.events.map((e) => [e.id, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)]);
            return this.chain ? [p.streamId, p.expected, rows, this.prepareChain(p, rows)] : [p.streamId, p.expected, rows];
          }),
        );
        batch.push(item);
      } catch (error) {
        item.reject(error); // not serialisable: this append fails alone, as inline
      }
    }
    if (batch.length === 0) return;
    this.inFlight += 1;
    this.lastGroup = writer.request<ThreadGroupResult>('append', items).then(
      ({ outcomes, maxSeq }) => {
        // Committed: the rows join the recent window (in the global order) before anyone hears of them.
        outcomes.forEach((outcome, i) => {
          if ('ok' in outcome) outcome.ok.forEach(([revision, seq], j) => this.remember(items[i][j][0], items[i][j][2], revision, seq));
        });
        batch.forEach((item, i) => {
          const outcome = outcomes[i];
          if ('ok' in outcome) item.resolve(outcome.ok.map(([revision, seq]) => ({ nextExpectedRevision: revision, position: encodePosition(BigInt(seq)) })));
          else item.reject(appendError(outcome.error));
        });
        if (outcomes.some((o) => 'ok' in o)) this.announce(maxSeq);
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : writerError(error as WriterErrorInfo);
        for (const item of batch) item.reject(failure);
      },
    ).finally(() => {
      this.inFlight -= 1;
      this.flushToThread(writer);
    });
  }

  /**
   * The highest position this instance has told its listeners of (its own appends once committed and
   * answered, another connection's once its watch saw them), or null. The projection pipeline's
   * thread reads no further (PipelineThread): the read models never get ahead of what this process's
   * requests have been told of their own appends.
   */
  announcedHead(): string | null {
    return this.announced > 0 ? encodePosition(BigInt(this.announced)) : null;
  }

  /** Tells listeners of appends up to `seq` (this instance's own). */
  private announce(seq: number): void {
    if (seq > this.announced) this.announced = seq;
    this.emitter.emit('appended');
  }

  /**
   * The audit chain's work for a part's events done before the write transaction, by this thread
   * (libs/audit/src/chain-core.mjs prepareChain): the writer thread then only chains (one short
   * hash and an insert per event) while it holds the store's write lock. The event hash is made
   * for the revisions the expected revision implies (none for `any`).
   */
  private prepareChain({ streamId, expected, events }: StreamAppend, rows: string[][]): PartPreparation {
    if (!isChained(streamId)) return [];
    return preparePart(streamId, expected === 'no_stream' ? 0 : typeof expected === 'number' ? expected + 1 : null, events, rows.map((r) => r[3]));
  }

  private appendInTransaction(item: StreamAppend): AppendResult {
    const row = this.stmts.streamRevision.get(item.streamId);
    const current = row ? row.revision : -1;
    const { expected } = item;
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && current === -1) ||
      (typeof expected === 'number' && expected === current);
    if (!ok) {
      throw new WrongExpectedRevisionError(item.streamId, expected, current === -1 ? 'no_stream' : current);
    }
    let revision = current;
    let seq = 0n;
    const rows: string[][] = [];
    for (const event of item.events) {
      revision += 1;
      const row = [event.id, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata)];
      const info = this.stmts.insertEvent.run(row[0], item.streamId, revision, row[1], row[2], row[3]);
      seq = BigInt(info.lastInsertRowid);
      this.chain?.chain(row[0], item.streamId, revision, row[1], row[2], row[3], Number(seq));
      rows.push(row);
    }
    this.stmts.upsertStream.run(item.streamId, revision);
    // Into the recent window only once the whole group has committed (inline: at the end of flush).
    this.committedInline.push([item.streamId, rows, revision, Number(seq)]);
    return { nextExpectedRevision: revision, position: encodePosition(seq) };
  }

  /** Inline mode: the parts the current group wrote, remembered once its transaction commits. */
  private committedInline: Array<[string, string[][], number, number]> = [];

  /** One committed part: its events ([id, type, data, metadata] as written) end at `revision` and `seq`. */
  private remember(streamId: string, events: string[][], revision: number, seq: number): void {
    const first = seq - events.length + 1;
    events.forEach(([id, type, data, metadata], k) =>
      this.recent.add({ seq: first + k, event_id: id, stream_id: streamId, revision: revision - events.length + 1 + k, type, data, metadata, position: encodePosition(BigInt(first + k)) }),
    );
  }

  async readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    return this.stmts.readStream.all(streamId, fromRevision).map(toRecorded);
  }

  /**
   * From the recent window when the range starts in it (only the run held there: a reader reads
   * again for what follows), otherwise from the database.
   */
  async readAll({ after, maxCount, parseOnly }: ReadAllOptions): Promise<RecordedEvent[]> {
    const from = after ? Number(decodePosition(after).commit) : 0;
    const recent = this.recent.after(from, maxCount);
    // At the announced head while the watch runs: nothing to read that a listener has been told of
    // (another connection's commit is announced, and wakes the readers, within WATCH_MS). The read
    // that follows every batch of a follower or the pipeline would otherwise be a query for nothing.
    if (!recent.length && this.watchTimer !== null && from >= this.announced) return [];
    const rows: Array<EventRow | AppendedRow> = recent.length ? recent : this.stmts.readAll.all(from, maxCount);
    if (!parseOnly) return rows.map(toRecorded);
    return rows.map((row) => (parseOnly.has(row.type) ? toRecorded(row) : toUnparsed(row)));
  }

  async headPosition(): Promise<string | null> {
    const { seq } = this.stmts.head.get() ?? { seq: null };
    return seq == null ? null : encodePosition(BigInt(seq));
  }

  /**
   * Listeners hear this instance's appends at once and another connection's (another process or
   * instance on the same file) within WATCH_MS: SQLite's `data_version` changes exactly when another
   * connection has committed, a check that reads no table.
   */
  onAppended(listener: () => void): () => void {
    this.emitter.on('appended', listener);
    this.watch();
    return () => {
      this.emitter.off('appended', listener);
      if (this.emitter.listenerCount('appended') === 0) this.unwatch();
    };
  }

  private watch(): void {
    if (this.watchTimer || !this.db.open) return;
    this.dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    this.announced = Math.max(this.announced, Number(this.stmts.head.get()?.seq ?? 0));
    this.watchTimer = setInterval(() => {
      if (!this.db.open) return this.unwatch();
      const version = this.db.pragma('data_version', { simple: true }) as number;
      if (version === this.dataVersion) return;
      this.dataVersion = version;
      // Another connection committed: this store's own writer thread (already announced when it
      // answered), another process, or a pruning. News only if the log grew beyond what was told.
      const head = Number(this.stmts.head.get()?.seq ?? 0);
      if (head > this.announced) {
        this.announced = head;
        this.emitter.emit('appended');
      }
    }, WATCH_MS);
    this.watchTimer.unref();
  }

  private unwatch(): void {
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.watchTimer = null;
  }

  async deleteStreamsOlderThan(prefix: string, before: string, limit: number): Promise<number> {
    if (!prefix) throw new Error('deleteStreamsOlderThan needs a stream prefix');
    // The streams of the prefix as a range of the primary key (`LIKE` would scan every stream).
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    // The recent window must not serve a deleted event (it only holds recent ones; emptied all the same).
    this.recent.clear();
    const deleteStreams = this.db.transaction(() => {
      const victims = this.db
        .prepare<[string, string, string, number], { stream_id: string }>(
          `SELECT s.stream_id FROM streams s JOIN events e ON e.stream_id = s.stream_id AND e.revision = s.revision
            WHERE s.stream_id >= ? AND s.stream_id < ? AND json_extract(e.metadata, '$.occurred_at') < ? LIMIT ?`,
        )
        .all(prefix, end, before, limit);
      const events = this.db.prepare('DELETE FROM events WHERE stream_id = ?');
      const stream = this.db.prepare('DELETE FROM streams WHERE stream_id = ?');
      for (const { stream_id } of victims) {
        events.run(stream_id);
        stream.run(stream_id);
      }
      return victims.length;
    });
    return deleteStreams.immediate();
  }

  /** Whether the newest event of a chained stream is chained (the chain is written with the events, so then all are). */
  private chainIsCurrent(): boolean {
    const newest = this.db.prepare<[], { seq: number; stream_id: string }>('SELECT seq, stream_id FROM events ORDER BY seq DESC');
    for (const { seq, stream_id } of newest.iterate()) {
      if (!isChained(stream_id)) continue;
      return chainEnd(this.db) >= seq;
    }
    return true;
  }

  /** The `chain_blocks` table read on this thread's connection (WAL: every committed group). */
  private chainReader(): AuditChain {
    const stmts = {
      /** The block holding an account's entry `seq`, then the blocks after it. */
      holding: this.db.prepare<[string, number], BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM chain_blocks WHERE account = ? AND first_seq <= ? ORDER BY first_seq DESC LIMIT 1`),
      after: this.db.prepare<[string, number], BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM chain_blocks WHERE account = ? AND first_seq > ? ORDER BY first_seq`),
      /** The chain hash before a block: its predecessor's last. */
      before: this.db.prepare<[string, number], { chain_hash: Buffer }>('SELECT chain_hash FROM chain_blocks WHERE account = ? AND first_seq < ? ORDER BY first_seq DESC LIMIT 1'),
      last: this.db.prepare<[string], { first_seq: number; count: number; chain_hash: Buffer }>(LAST_BLOCK_SQL),
      // Distinct accounts by skipping along the primary key (not a scan of every block).
      accounts: this.db.prepare<[], { account: string }>(
        `WITH RECURSIVE a(account) AS (SELECT MIN(account) FROM chain_blocks UNION ALL SELECT (SELECT MIN(account) FROM chain_blocks WHERE account > a.account) FROM a WHERE a.account IS NOT NULL)
         SELECT account FROM a WHERE account IS NOT NULL`,
      ),
      // The event's position from the events table's event_id index, then the blocks of the commit holding it.
      position: this.db.prepare<[string], { seq: number }>('SELECT seq FROM events WHERE event_id = ?'),
      commitOf: this.db.prepare<[number], BlockRow>(
        `SELECT ${BLOCK_COLUMNS} FROM chain_blocks WHERE commit_first = (SELECT MAX(commit_first) FROM chain_blocks WHERE commit_first <= ?)`,
      ),
    };
    const prevOf = (block: ChainBlock): Buffer => (block.firstSeq > 0 ? (stmts.before.get(block.account, block.firstSeq)?.chain_hash ?? GENESIS_BYTES) : GENESIS_BYTES);
    /** A block's entries from index `from`, each with its prev and chain hash. */
    const entries = (block: ChainBlock, prev: Buffer, from = 0, limit = Infinity): ChainEntry[] => {
      const hashes = blockChainHashes(block, prev);
      const out: ChainEntry[] = [];
      for (let i = from; i < block.count && out.length < limit; i++) {
        out.push({
          account: block.account,
          seq: block.firstSeq + i,
          event_id: block.eventIds[i],
          position: encodePosition(BigInt(block.positions[i])),
          event_hash: block.eventHashes[i].toString('hex'),
          prev: (i === 0 ? prev : hashes[i - 1]).toString('hex'),
          chain_hash: hashes[i].toString('hex'),
        });
      }
      return out;
    };
    return {
      readChain: async (account, fromSeq, limit) => {
        const out: ChainEntry[] = [];
        if (limit <= 0) return out;
        const first = stmts.holding.get(account, fromSeq);
        let prev: Buffer | null = null;
        let lastSeq = -1;
        if (first) {
          const block = decodeBlock(first);
          lastSeq = block.firstSeq;
          prev = block.chainHash;
          if (fromSeq < block.firstSeq + block.count) out.push(...entries(block, prevOf(block), fromSeq - block.firstSeq, limit));
        }
        if (out.length < limit) {
          for (const row of stmts.after.iterate(account, lastSeq)) {
            const block = decodeBlock(row);
            // A gap between blocks: the entries before this block are missing; its prev is still its predecessor's.
            out.push(...entries(block, prev ?? prevOf(block), Math.max(0, fromSeq - block.firstSeq), limit - out.length));
            prev = block.chainHash;
            if (out.length >= limit) break;
          }
        }
        return out;
      },
      chainHead: async (account): Promise<ChainHead> => {
        const row = stmts.last.get(account);
        return row ? { account, size: row.first_seq + row.count, chain_hash: row.chain_hash.toString('hex') } : { account, size: 0, chain_hash: GENESIS };
      },
      chainAccounts: async () => stmts.accounts.all().map((r) => r.account),
      chainEntry: async (eventId) => {
        const at = stmts.position.get(eventId);
        if (!at) return null;
        for (const row of stmts.commitOf.all(at.seq)) {
          const block = decodeBlock(row);
          const i = block.positions.indexOf(at.seq);
          if (i >= 0) return entries(block, prevOf(block), i, 1)[0];
        }
        return null;
      },
    };
  }

  async close(): Promise<void> {
    this.unwatch();
    if (this.writer) {
      // Every append already made is committed (or refused) before the thread and connection close.
      while (this.inFlight || this.queue.length) {
        if (this.inFlight < this.groupsInFlight) this.flushToThread(this.writer);
        await this.lastGroup;
      }
      await this.writer.close();
    } else if (this.queue.length) this.flush();
    this.db.close();
  }

  /** A pragma on the connection that writes (pragmaOnWriter). */
  writerPragma(pragma: string): Promise<unknown> {
    return pragmaOnWriter(this.writer, this.db, pragma);
  }
}

/** A refused append as the writer thread described it: a conflict is the port's WrongExpectedRevisionError. */
function appendError(info: WriterErrorInfo): Error {
  if (info.conflict) return new WrongExpectedRevisionError(info.conflict.streamId, info.conflict.expected as ExpectedRevision, info.conflict.actual as number | 'no_stream');
  return writerError(info);
}

/** A stored row as a recorded event, with its data as given. */
function recorded(row: EventRow | AppendedRow, data: RecordedEvent['data']): RecordedEvent {
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: row.revision,
    type: row.type,
    data,
    metadata: JSON.parse(row.metadata),
    position: 'position' in row ? row.position : encodePosition(BigInt(row.seq)),
  };
}

function toRecorded(row: EventRow | AppendedRow): RecordedEvent {
  return recorded(row, JSON.parse(row.data));
}

/** An event a reader said it does not look into (`parseOnly`): everything but its data (the larger part). */
function toUnparsed(row: EventRow | AppendedRow): RecordedEvent {
  return recorded(row, {});
}
