// One read-model commit on a better-sqlite3 connection: documents and checkpoints in one transaction.
// Shared by SqliteReadStore (libs/read-store/src/sqlite-read-store.ts), inline on its own connection,
// and the writer thread (sqlite-writer.worker.mjs), so both keep the same rules. Plain JavaScript, so
// that the writer thread loads it as it is from the sources (jest) and from dist (the build copies it).

/** The leases' collection (LEASES_COLLECTION of the read-store port). */
const LEASES = 'leases';
const CHECKPOINT = 'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = max(position, excluded.position)';

/**
 * The writes of a read-model commit on `conn`, to run inside one of its transactions. Statements are
 * prepared from the SQL each write carries (built by SqliteReadStore.shape from what its connection
 * found in the table: upsert, delete, and for a table with `_position` the positioned delete, its
 * tombstone, whether the collection has any tombstone, the tombstone of an id) and kept by their text.
 *
 * - `write(collection, positionAt, sql, row, tombstoned)`: row = [id, doc JSON | null, ...one value per
 *   column]; `positionAt` the index of the `_position` column (-1: none); a null doc deletes, and a
 *   positioned delete carries its position in the `_position` column's place; `tombstoned` is the
 *   commit's memory of which collections have tombstones (asked once per collection, and only when
 *   a positioned document is written). A unique index refusing the document throws an error with
 *   `unique: { collection, detail }`.
 * - `checkpoint(name, position)`: moves a checkpoint forward (never back).
 * - `commit`: the whole transaction from the writer thread's message — rows per collection
 *   [collection, positionAt, column count, flat = [id, doc JSON | null, ...column values, id, …], sql]
 *   and checkpoints [name, position].
 */
export function readModelWrites(conn) {
  const statements = new Map();
  const prepared = (sql) => {
    let stmt = statements.get(sql);
    if (!stmt) statements.set(sql, (stmt = conn.prepare(sql)));
    return stmt;
  };
  const checkpointStatement = conn.prepare(CHECKPOINT);
  function write(collection, positionAt, [upsertSql, removeSql, removeAtSql, tombstoneSql, anySql, ofSql], row, tombstoned) {
    const id = row[0];
    const positioned = positionAt >= 0 && Boolean(removeAtSql);
    const position = positionAt < 0 ? null : row[2 + positionAt];
    if (row[1] === null) {
      if (positioned && position !== null) {
        prepared(removeAtSql).run(id, position);
        prepared(tombstoneSql).run(id, position);
        tombstoned.set(collection, true);
      } else prepared(removeSql).run(id);
      return;
    }
    if (positioned && typeof position === 'string') {
      let any = tombstoned.get(collection);
      if (any === undefined) tombstoned.set(collection, (any = prepared(anySql).get() !== undefined));
      const deleted = any ? prepared(ofSql).get(id) : undefined;
      if (deleted && deleted.position > position) return; // deleted after this version: stays deleted
    }
    try {
      prepared(upsertSql).run(row);
    } catch (error) {
      if (error?.code === 'SQLITE_CONSTRAINT_UNIQUE') throw Object.assign(new Error(error.message), { unique: { collection, detail: `document ${id}: ${error.message}` } });
      throw error;
    }
  }
  const checkpoint = (name, position) => checkpointStatement.run(name, position);
  let leaseStatement = null;
  /**
   * A fenced commit ([unit, holder, epoch]): refused (an error with `fenced`, rolling the transaction
   * back) unless the lease document `rm_leases/<unit>` still names this holder at this epoch.
   */
  function fence(token) {
    if (!token) return;
    const [unit, holder, epoch] = token;
    leaseStatement ??= conn.prepare(`SELECT json_extract(doc, '$.holder') AS holder, json_extract(doc, '$.epoch') AS epoch FROM rm_${LEASES} WHERE id = ?`);
    const lease = leaseStatement.get(unit);
    if (!lease || lease.holder !== holder || lease.epoch !== epoch) {
      throw Object.assign(new Error(`lease ${unit} is no longer held by ${holder} at epoch ${epoch}: the write is refused`), { fenced: { unit, holder, epoch } });
    }
  }
  const commit = conn.transaction((rows, checkpoints, token) => {
    fence(token);
    const tombstoned = new Map();
    for (const [collection, positionAt, columns, flat, sql] of rows) {
      const stride = 2 + columns;
      for (let at = 0; at < flat.length; at += stride) write(collection, positionAt, sql, flat.slice(at, at + stride), tombstoned);
    }
    for (const [name, position] of checkpoints) checkpoint(name, position);
  });
  /**
   * A compare-and-set of one document (ReadStore.swap), its own IMMEDIATE transaction: `readSql`
   * selects the document's JSON by id, `upsertSql` writes `row` (as a commit's write); replaced only
   * if every field of `expected` equals the stored one (missing = null), or, with `expected` null,
   * only if there is no document. True when it replaced it.
   */
  const swapTransaction = conn.transaction((readSql, upsertSql, id, expected, row) => {
    const current = prepared(readSql).get(id);
    if (expected === null ? current !== undefined : current === undefined) return false;
    if (expected !== null) {
      const doc = JSON.parse(current.doc);
      for (const [field, value] of Object.entries(expected)) if ((doc[field] ?? null) !== value) return false;
    }
    prepared(upsertSql).run(row);
    return true;
  });
  const swap = ({ readSql, upsertSql, id, expected, row }) => swapTransaction.immediate(readSql, upsertSql, id, expected, row);
  return { write, checkpoint, fence, commit, swap };
}
