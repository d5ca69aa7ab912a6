// The audit chain on the embedded SQLite event store (docs/audit.md): the `chain` table, written in
// the same transaction as the events it chains — by the writer thread (libs/shared/src/
// sqlite-writer.worker.mjs) or inline by SqliteEventStore. Plain JavaScript for the same reason as
// sqlite-read-model-commit.mjs: the worker loads it as it is, from the sources and from dist.
import { canonicalText, chainAccount, chainHashBytes, eventHashBytesOf, isChained } from './chain-core.mjs';

const GENESIS_BYTES = Buffer.alloc(32);

/** One row per chained event; `position` is the event's `events.seq` (the global position, unencoded). */
export const CHAIN_SCHEMA = `
  CREATE TABLE IF NOT EXISTS chain (
    position INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    event_hash BLOB NOT NULL,
    chain_hash BLOB NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS chain_account_seq ON chain (account, seq);
`;

/**
 * The chain writes of one connection. Each account's head (its size and last chain_hash) is kept in
 * memory once read; `begin` (inside the group's write transaction) drops them all when another
 * connection committed since (SQLite's data_version), so two processes on one file never fork a
 * chain. Heads changed by an append that its savepoint rolls back are undone (`mark`/`rollbackTo`),
 * and only a committed transaction's heads are kept (`commit`; `abort` forgets them).
 */
export function chainWrites(conn) {
  const last = conn.prepare('SELECT seq, chain_hash FROM chain WHERE account = ? ORDER BY seq DESC LIMIT 1');
  const insert = conn.prepare('INSERT INTO chain (account, seq, event_id, position, event_hash, chain_hash) VALUES (?, ?, ?, ?, ?, ?)');
  /** account → [size, chain_hash (32 bytes)], as committed. */
  const heads = new Map();
  /** This transaction's heads, and how to undo each change: [account, the staged value before | undefined]. */
  let staged = new Map();
  let undo = [];
  let dataVersion = null;

  function head(account) {
    const h = staged.get(account) ?? heads.get(account);
    if (h) return h;
    const row = last.get(account);
    const loaded = row ? [row.seq + 1, row.chain_hash] : [0, GENESIS_BYTES];
    heads.set(account, loaded);
    return loaded;
  }

  return {
    begin() {
      const version = conn.pragma('data_version', { simple: true });
      if (version !== dataVersion) heads.clear();
      dataVersion = version;
      staged = new Map();
      undo = [];
    },
    /**
     * Chains one stored event (data and metadata: the JSON texts written); a no-op for unchained
     * streams. `prepared` (chain-core.mjs prepareChain, made before the transaction from the same
     * texts) spares the parsing and hashing here; its hash is used when made for this revision.
     */
    chain(id, streamId, revision, type, data, metadata, position, prepared = null, preparedRevision = null) {
      if (!isChained(streamId)) return;
      let chainOf;
      let hash;
      if (prepared && prepared[2] && preparedRevision === revision) {
        chainOf = prepared[4];
        hash = Buffer.from(prepared[2], 'latin1');
      } else if (prepared && prepared[0] !== null) {
        chainOf = prepared[4];
        hash = eventHashBytesOf(id, type, streamId, revision, prepared[3] ?? undefined, prepared[0], prepared[1]);
      } else {
        const meta = JSON.parse(metadata);
        chainOf = chainAccount(meta);
        hash = eventHashBytesOf(id, type, streamId, revision, meta?.occurred_at, canonicalText(data), canonicalText(metadata));
      }
      const [size, prev] = head(chainOf);
      const next = chainHashBytes(prev, hash);
      insert.run(chainOf, size, id, position, hash, next);
      undo.push([chainOf, staged.get(chainOf)]);
      staged.set(chainOf, [size + 1, next]);
    },
    mark() {
      return undo.length;
    },
    rollbackTo(mark) {
      while (undo.length > mark) {
        const [account, before] = undo.pop();
        if (before === undefined) staged.delete(account);
        else staged.set(account, before);
      }
    },
    commit() {
      for (const [account, h] of staged) heads.set(account, h);
      staged = new Map();
      undo = [];
    },
    abort() {
      staged = new Map();
      undo = [];
    },
  };
}

/**
 * Chains the events a store holds beyond the chain's last position (a store written before the
 * chain existed, once, at open): in log order, in one transaction. Returns how many it chained.
 */
export function chainBacklog(conn) {
  const end = conn.prepare('SELECT MAX(position) AS p FROM chain');
  const page = conn.prepare('SELECT seq, event_id, stream_id, revision, type, data, metadata FROM events WHERE seq > ? ORDER BY seq LIMIT 1000');
  const writes = chainWrites(conn);
  // Where the chain ends is read inside the write transaction: two connections opening the same old
  // store at once (the service and its projection thread) chain the backlog once.
  const run = conn.transaction(() => {
    let n = 0;
    writes.begin();
    for (let after = end.get().p ?? 0, rows = page.all(after); rows.length; after = rows[rows.length - 1].seq, rows = page.all(after)) {
      for (const row of rows) writes.chain(row.event_id, row.stream_id, row.revision, row.type, row.data, row.metadata, row.seq);
      n += rows.length;
    }
    return n;
  });
  return run.immediate();
}
