// The audit chain on the embedded SQLite event store (docs/audit.md): the `chain` table, written in
// the same transaction as the events it chains — by the writer thread (libs/shared/src/
// sqlite-writer.worker.mjs) or inline by SqliteEventStore. Plain JavaScript for the same reason as
// sqlite-read-model-commit.mjs: the worker loads it as it is, from the sources and from dist.
import { canonicalText, chainAccount, chainHashBytes, chainHashLatin1, eventHashBytesOf, isChained } from './chain-core.mjs';

/** The chain hash before an account's first entry (GENESIS as bytes). */
export const GENESIS_BYTES = Buffer.alloc(32);

/**
 * One row per account and commit (a block), holding that commit's entries of the account in order:
 * a row per event cost the appends a B-tree insert and an index entry each (the chain's cost was
 * ~40 % of the appends' throughput; see docs/audit.md). An entry's `chain_hash` is not stored but the
 * block's last: readers link the block's `event_hashes` from the previous block's `chain_hash` and end
 * on the stored one, so an altered hash inside a block breaks its last link.
 *
 * `commit_first`: the first chained position of the commit that wrote the block. Commits hold
 * disjoint ranges of positions, so the block holding a position is among those of the greatest
 * commit_first at or below it (what finds an event's entry by its position, whatever its account).
 */
export const CHAIN_SCHEMA = `
  CREATE TABLE IF NOT EXISTS chain_blocks (
    account TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    count INTEGER NOT NULL,
    commit_first INTEGER NOT NULL,
    last_position INTEGER NOT NULL,
    positions BLOB NOT NULL,
    event_ids TEXT NOT NULL,
    event_hashes BLOB NOT NULL,
    chain_hash BLOB NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS chain_blocks_account ON chain_blocks (account, first_seq);
  CREATE INDEX IF NOT EXISTS chain_blocks_commit ON chain_blocks (commit_first);
`;

/** The columns of a block, as `decodeBlock` reads them. */
export const BLOCK_COLUMNS = 'account, first_seq, count, commit_first, last_position, positions, event_ids, event_hashes, chain_hash';

/** An account's last block: its first entry's seq, its count and its last chain hash (the account's head). */
export const LAST_BLOCK_SQL = 'SELECT first_seq, count, chain_hash FROM chain_blocks WHERE account = ? ORDER BY first_seq DESC LIMIT 1';
const INSERT_BLOCK_SQL = `INSERT INTO chain_blocks (${BLOCK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** A stored block's entries: positions (numbers), event ids, event hashes (32-byte buffers), and the stored last chain hash. */
export function decodeBlock(row) {
  const positions = [];
  for (let i = 0; i < row.count; i++) positions.push(Number(row.positions.readBigInt64LE(i * 8)));
  const hashes = [];
  for (let i = 0; i < row.count; i++) hashes.push(row.event_hashes.subarray(i * 32, i * 32 + 32));
  return { account: row.account, firstSeq: row.first_seq, count: row.count, positions, eventIds: JSON.parse(row.event_ids), eventHashes: hashes, chainHash: row.chain_hash };
}

/**
 * The chain hash after each entry of a block, from `prev` (the previous block's chain_hash, or
 * genesis): linked from the event hashes, but the last, which is the stored one (see CHAIN_SCHEMA).
 */
export function blockChainHashes(block, prev) {
  const out = [];
  let at = prev;
  for (let i = 0; i < block.count; i++) {
    at = i === block.count - 1 ? block.chainHash : chainHashBytes(at, block.eventHashes[i]);
    out.push(at);
  }
  return out;
}

/** A block's row values (for INSERT … (BLOCK_COLUMNS)). */
function blockValues(account, firstSeq, commitFirst, positions, ids, hashes, chainHash) {
  const p = Buffer.allocUnsafe(positions.length * 8);
  for (let i = 0; i < positions.length; i++) p.writeBigInt64LE(BigInt(positions[i]), i * 8);
  return [account, firstSeq, positions.length, commitFirst, positions[positions.length - 1], p, JSON.stringify(ids), Buffer.from(hashes.join(''), 'latin1'), chainHash];
}

/**
 * The chain writes of one connection. Each account's head (its size and last chain_hash) is kept in
 * memory once read; `begin` (inside the group's write transaction) drops them all when another
 * connection committed since (SQLite's data_version), so two processes on one file never fork a
 * chain. The transaction's entries gather per account and are written by `seal` (one block per
 * account, before the transaction commits); entries and heads of an append that its savepoint rolls
 * back are undone (`mark`/`rollbackTo`), and only a committed transaction's heads are kept
 * (`commit`; `abort` forgets them).
 */
export function chainWrites(conn) {
  const last = conn.prepare(LAST_BLOCK_SQL);
  const insert = conn.prepare(INSERT_BLOCK_SQL);
  /** account → [size, chain_hash (32 bytes)], as committed. */
  const heads = new Map();
  /** This transaction's heads: account → [size, chain_hash]. */
  let staged = new Map();
  /** This transaction's entries per account: { firstSeq, positions, ids, hashes (latin1 strings of 32) }. */
  let blocks = new Map();
  /** One per entry: [account, its staged head before]. */
  let undo = [];
  let dataVersion = null;

  function head(account) {
    const h = staged.get(account) ?? heads.get(account);
    if (h) return h;
    const row = last.get(account);
    const loaded = row ? [row.first_seq + row.count, row.chain_hash] : [0, GENESIS_BYTES];
    heads.set(account, loaded);
    return loaded;
  }

  return {
    begin() {
      const version = conn.pragma('data_version', { simple: true });
      if (version !== dataVersion) heads.clear();
      dataVersion = version;
      staged = new Map();
      blocks = new Map();
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
        hash = prepared[2];
      } else if (prepared && prepared[0] !== null) {
        chainOf = prepared[4];
        hash = eventHashBytesOf(id, type, streamId, revision, prepared[3] ?? undefined, prepared[0], prepared[1]).toString('latin1');
      } else {
        const meta = JSON.parse(metadata);
        chainOf = chainAccount(meta);
        hash = eventHashBytesOf(id, type, streamId, revision, meta?.occurred_at, canonicalText(data), canonicalText(metadata)).toString('latin1');
      }
      this.link(id, chainOf, position, hash);
    },
    /** Chains one stored event of `account` whose hash (32 bytes as a latin1 string) is known. */
    link(id, chainOf, position, hash) {
      const [size, prev] = head(chainOf);
      let block = blocks.get(chainOf);
      if (!block) blocks.set(chainOf, (block = { firstSeq: size, positions: [], ids: [], hashes: [] }));
      block.positions.push(position);
      block.ids.push(id);
      block.hashes.push(hash);
      undo.push([chainOf, staged.get(chainOf)]);
      staged.set(chainOf, [size + 1, chainHashLatin1(prev, hash)]);
    },
    mark() {
      return undo.length;
    },
    rollbackTo(mark) {
      while (undo.length > mark) {
        const [account, before] = undo.pop();
        const block = blocks.get(account);
        block.positions.pop();
        block.ids.pop();
        block.hashes.pop();
        if (block.positions.length === 0) blocks.delete(account);
        if (before === undefined) staged.delete(account);
        else staged.set(account, before);
      }
    },
    /** Writes the transaction's blocks (inside it, after its last append). */
    seal() {
      if (blocks.size === 0) return;
      let commitFirst = Infinity;
      for (const block of blocks.values()) if (block.positions[0] < commitFirst) commitFirst = block.positions[0];
      for (const [account, block] of blocks) {
        insert.run(...blockValues(account, block.firstSeq, commitFirst, block.positions, block.ids, block.hashes, staged.get(account)[1]));
      }
      blocks = new Map();
    },
    commit() {
      for (const [account, h] of staged) heads.set(account, h);
      staged = new Map();
      blocks = new Map();
      undo = [];
    },
    abort() {
      staged = new Map();
      blocks = new Map();
      undo = [];
    },
  };
}

/** Where the chain ends: the greatest chained position (0: nothing chained yet). */
export function chainEnd(conn) {
  return conn.prepare('SELECT MAX(last_position) AS p FROM chain_blocks WHERE commit_first = (SELECT MAX(commit_first) FROM chain_blocks)').get()?.p ?? 0;
}

/**
 * Chains the events a store holds beyond the chain's last position (a store written before the
 * chain existed, once, at open): in log order, in one transaction, a block per account and page of
 * 1,000 events. Returns how many it chained.
 */
export function chainBacklog(conn) {
  const page = conn.prepare('SELECT seq, event_id, stream_id, revision, type, data, metadata FROM events WHERE seq > ? ORDER BY seq LIMIT 1000');
  const writes = chainWrites(conn);
  // Where the chain ends is read inside the write transaction: two connections opening the same old
  // store at once (the service and its projection thread) chain the backlog once.
  const run = conn.transaction(() => {
    let n = 0;
    writes.begin();
    for (let after = chainEnd(conn), rows = page.all(after); rows.length; after = rows[rows.length - 1].seq, rows = page.all(after)) {
      for (const row of rows) writes.chain(row.event_id, row.stream_id, row.revision, row.type, row.data, row.metadata, row.seq);
      writes.seal();
      n += rows.length;
    }
    return n;
  });
  const chained = run.immediate();
  writes.commit();
  return chained;
}

/**
 * A store whose chain is still the earlier `chain` table (a row per event): its rows become blocks
 * of one entry each, with the same hashes, and the table is dropped, in one transaction (once, at
 * open; a second connection opening the file at the same time finds nothing left to move).
 * Returns how many entries moved.
 */
export function migrateRowChain(conn) {
  const exists = () => conn.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'chain'").get() !== undefined;
  if (!exists()) return 0;
  const run = conn.transaction(() => {
    if (!exists()) return 0;
    const insert = conn.prepare(INSERT_BLOCK_SQL);
    let n = 0;
    const page = conn.prepare('SELECT position, account, seq, event_id, event_hash, chain_hash FROM chain WHERE position > ? ORDER BY position LIMIT 1000');
    for (let rows = page.all(0); rows.length; rows = page.all(rows[rows.length - 1].position)) {
      for (const row of rows) insert.run(...blockValues(row.account, row.seq, row.position, [row.position], [row.event_id], [row.event_hash.toString('latin1')], row.chain_hash));
      n += rows.length;
    }
    conn.exec('DROP TABLE chain');
    return n;
  });
  return run.immediate();
}
