// The SQLite writer thread (see libs/shared/src/sqlite-writer-thread.ts): one better-sqlite3
// connection of its own on the store's file (WAL), doing the commits of one embedded store so that
// their CPU and their fsync do not hold up the service's event loop. Plain JavaScript importing only
// better-sqlite3 and the read-model commit it shares with SqliteReadStore (sqlite-read-model-commit.mjs),
// so that Node loads it as it is from the sources (jest) and from dist (the build copies it there).
//
// `kind: 'events'`: one group of appends per message, one transaction (synchronous=FULL), a savepoint
// per append (its expected revisions checked inside it), as SqliteEventStore does inline.
// `kind: 'reads'`: one read-model commit per message (documents and checkpoints in one transaction).
import Database from 'better-sqlite3';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { readModelWrites } from './sqlite-read-model-commit.mjs';
import { chainWrites } from '#audit/sqlite-chain.mjs';

// `chain` (events, default true): writes the audit chain in each group's transaction.
const { file, kind, chain: chained = true } = workerData;
/** Opened at the first request (and again after a failed open: the file may come back). */
let db = null;
let ops = null;
/** The WAL checkpointer thread (sqlite-checkpointer.worker.mjs), started with the first connection. */
let checkpointer = null;

function open() {
  if (db) return;
  const conn = new Database(file, { fileMustExist: true });
  try {
    conn.pragma('journal_mode = WAL');
    conn.pragma(kind === 'events' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    conn.pragma('busy_timeout = 10000');
    // Commits never run a checkpoint: the checkpointer thread does them beside the commits.
    conn.pragma('wal_autocheckpoint = 0');
    checkpointer ??= new Worker(new URL('./sqlite-checkpointer.worker.mjs', import.meta.url), { workerData: { file } });
    ops = kind === 'events' ? eventOps(conn) : readOps(conn);
  } catch (error) {
    conn.close();
    throw error;
  }
  db = conn;
}

const STORE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN)(_|$)/;

function eventOps(conn) {
  const streamRevision = conn.prepare('SELECT revision FROM streams WHERE stream_id = ?');
  const upsertStream = conn.prepare('INSERT INTO streams (stream_id, revision) VALUES (?, ?) ON CONFLICT(stream_id) DO UPDATE SET revision = excluded.revision');
  const insertEvent = conn.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  // The audit chain (libs/audit/src/sqlite-chain.mjs): a block per account and group, in the same transaction.
  const chain = chained ? chainWrites(conn) : null;

  /**
   * One part of an append: [streamId, expected, [[id, type, data, metadata], …], the audit chain's
   * preparations of those events (libs/audit/src/chain-core.mjs prepareChain, optional)] → [revision, seq].
   */
  function appendPart([streamId, expected, events, prepared]) {
    const row = streamRevision.get(streamId);
    const current = row ? row.revision : -1;
    const ok = expected === 'any' || (expected === 'no_stream' && current === -1) || (typeof expected === 'number' && expected === current);
    if (!ok) throw Object.assign(new Error('wrong expected revision'), { conflict: { streamId, expected, actual: current === -1 ? 'no_stream' : current } });
    let revision = current;
    let seq = 0;
    // The revisions the preparations' hashes were made for (the expected revision's; none for `any`).
    const first = expected === 'no_stream' ? 0 : typeof expected === 'number' ? expected + 1 : null;
    // Prepared as one [account, the hashes' 32-byte latin1 strings end to end] (chain-core.mjs
    // preparePart), when made for these revisions; else one preparation (or null) per event.
    const compact = chain && prepared && typeof prepared[0] === 'string' && first === current + 1 ? prepared : null;
    for (let i = 0; i < events.length; i++) {
      const [id, type, data, metadata] = events[i];
      revision += 1;
      seq = Number(insertEvent.run(id, streamId, revision, type, data, metadata).lastInsertRowid);
      if (compact) chain.link(id, compact[0], seq, compact[1].substring(i * 32, i * 32 + 32));
      else chain?.chain(id, streamId, revision, type, data, metadata, seq, prepared && typeof prepared[0] !== 'string' ? (prepared[i] ?? null) : null, first === null ? null : first + i);
    }
    upsertStream.run(streamId, revision);
    return [revision, seq];
  }
  const appendOne = conn.transaction((parts) => parts.map(appendPart));
  const group = conn.transaction((items) => {
    chain?.begin();
    const outcomes = items.map((parts) => {
      const mark = chain?.mark();
      try {
        return { ok: appendOne(parts) };
      } catch (error) {
        chain?.rollbackTo(mark);
        // A full disk or an I/O error rolls the whole transaction back: the group fails as one.
        if (STORE_UNAVAILABLE.test(error?.code ?? '') || !conn.inTransaction) throw error;
        return { error: describe(error) };
      }
    });
    // The chain's blocks of this group, in its transaction.
    chain?.seal();
    return outcomes;
  });
  return {
    append(items) {
      let outcomes;
      try {
        outcomes = group.immediate(items);
      } catch (error) {
        chain?.abort();
        throw error;
      }
      chain?.commit();
      let maxSeq = 0;
      for (const o of outcomes) if (o.ok) for (const [, seq] of o.ok) maxSeq = Math.max(maxSeq, seq);
      return { outcomes, maxSeq };
    },
  };
}

function readOps(conn) {
  const { commit, swap } = readModelWrites(conn);
  return {
    swap(request) {
      return swap(request);
    },
    commit({ rows, checkpoints, fence }) {
      commit.immediate(rows, checkpoints, fence ?? null);
      return null;
    },
  };
}

/** An error as a message can carry it (the main thread makes the port's error classes of it again). */
function describe(error) {
  return {
    name: error?.name ?? 'Error',
    message: error?.message ?? String(error),
    code: typeof error?.code === 'string' ? error.code : undefined,
    conflict: error?.conflict,
    unique: error?.unique,
    fenced: error?.fenced,
  };
}

parentPort.on('message', ({ id, op, payload }) => {
  if (op === 'close') {
    if (db) db.close();
    db = null;
    checkpointer?.postMessage('close');
    checkpointer = null;
    parentPort.postMessage({ id, result: null });
    parentPort.close();
    return;
  }
  try {
    if (op === 'pragma') {
      // Tests make faults (a read-only or full database) on the connection that writes.
      open();
      parentPort.postMessage({ id, result: db.pragma(payload, { simple: true }) ?? null });
      return;
    }
    open();
    parentPort.postMessage({ id, result: ops[op](payload) });
  } catch (error) {
    parentPort.postMessage({ id, error: describe(error) });
  }
});
