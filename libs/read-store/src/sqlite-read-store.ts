import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type FenceToken, type ReadModelRow, type ReadModelRows, readModelWrites, type SwapRequest } from '#shared/sqlite-read-model-commit.mjs';
import { pragmaOnWriter, SqliteWriterThread, type SqliteWriterMode, type WriterErrorInfo, writerError, writerModeFor } from '#shared/sqlite-writer-thread.js';
import { assertStorable, type Checkpoint, type Fence, FencedError, type CollectionSpec, type DocumentWrite, type FindQuery, prefixEnd, type ReadStore, type Scalar, UniqueConstraintError } from './read-store.port.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkName(name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid collection or field name: ${name}`);
  return name;
}

const table = (collection: string) => `rm_${checkName(collection)}`;
const extract = (name: string) => `json_extract(doc, '$.${checkName(name)}')`;
/**
 * `_position`, the position of a projected document's last event, has a column in every table (filled
 * like an indexed field's), so that an upsert can keep to the rule MongoDB's adapter keeps: a document
 * stamped with a position only replaces one stamped at that position or before. Several processes
 * may run the projections on the same files (two workers, `ROLE=worker` beside `ROLE=all`); one that
 * lags must not put back an older version of a document another has already written (a request of
 * the other, waiting for its own checkpoint, would read it). Unstamped documents (derived entries, the
 * service's own records) always land. The writer thread (sqlite-writer.worker.mjs) is sent this
 * connection's statements' SQL (`shape`) and prepares the same ones.
 */
const POSITION = '_position';
const notOlder = (t: string) => {
  const p = column(POSITION);
  return `WHERE ${t}.${p} IS NULL OR excluded.${p} IS NULL OR excluded.${p} >= ${t}.${p}`;
};
/**
 * A positioned delete (a projection's document removed at an event) leaves a tombstone here, as
 * MongoDB's adapter leaves one in the collection: a lagging process's older write of the same
 * document does not land over it (it would bring the document back until that process reached the
 * delete itself). A document written at a later position (made again) lands. Tombstones are few
 * (projections delete rarely) and a reset drops the collection's.
 */
const TOMBSTONES = 'tombstones';
/** The column that holds an indexed field's value beside the JSON document. */
const column = (name: string) => `x_${checkName(name)}`;
const COLUMN = /^x_/;
/** Page cache during a bulk load: 64 MiB (negative: KiB). */
const BULK_CACHE_SIZE = -65536;
/** WAL auto-checkpoint during a bulk load: every 65,536 pages (256 MiB of 4 KiB pages) instead of 1,000. */
const BULK_WAL_AUTOCHECKPOINT = 65536;

/**
 * An indexed field's value as its column holds it: what `json_extract(doc, '$.field')` yields for
 * the document's JSON (booleans 1/0, objects and arrays as JSON text, missing or non-finite → NULL),
 * so filters and sort orders are those of the JSON document.
 */
function columnValue(value: unknown): string | number | null {
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return value ? 1 : 0;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      return value === null ? null : (JSON.stringify(value) ?? null);
    default:
      return null;
  }
}

/**
 * A document write as the read-model commit takes it, pushed onto `target`: id, the document's JSON
 * (null: a delete) and each indexed field's column value. A delete carries only its position, in the
 * `_position` column's place (see the positioned delete in SqliteReadStore.shape).
 */
function pushRow(target: ReadModelRow, w: DocumentWrite, fields: string[]): ReadModelRow {
  const doc = w.doc;
  target.push(w.id, doc === null ? null : JSON.stringify(doc));
  for (const f of fields) target.push(doc === null ? (f === POSITION ? (w.position ?? null) : null) : columnValue(doc[f]));
  return target;
}

/** SQLite binds booleans as 1/0, which is what json_extract yields for JSON true/false. */
function bindable(value: Scalar): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * A collection's indexed fields (those with a column) and the SQL of its commit's statements, in the
 * order sqlite-read-model-commit.mjs takes them: upsert, delete, and for a table with `_position` the
 * positioned delete, its tombstone, whether the collection has any tombstone, the tombstone of an id.
 */
interface Shape {
  fields: string[];
  /** Index of the `_position` column in `fields` (-1: none). */
  positionAt: number;
  sql: string[];
}

/**
 * Embedded read-model store: one table per collection (`id`, JSON `doc`, and a column `x_<field>`
 * per indexed field, filled from the document on every write), indexes on those columns,
 * checkpoints in the same database so a projector batch and its checkpoint commit in one
 * transaction. Indexing columns rather than `json_extract(doc, …)` expressions spares SQLite
 * parsing each written document once per index field (the event feed has six indexes).
 *
 * Writer thread (the default for a file): `commit` serialises the documents here and the writer
 * thread (sqlite-writer.worker.mjs, its own connection) runs the transaction; the promise resolves
 * once it committed, so a request waiting for its position reads its own writes. Reads, index
 * creation and resets stay on this thread's connection.
 */
export class SqliteReadStore implements ReadStore {
  readonly kind = 'sqlite';
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Per collection: its indexed fields (those with a column) and its prepared statements. */
  private readonly shapes = new Map<string, Shape>();
  /** The connection's read-model writes (sqlite-read-model-commit.mjs), when it commits inline. */
  private inlineWrites: ReturnType<typeof readModelWrites> | null = null;
  /** Commits in a writer thread (null: inline). */
  private readonly writer: SqliteWriterThread | null;
  /** Commits sent to the writer thread and not answered yet (a reset waits for them). */
  private readonly inFlight = new Set<Promise<unknown>>();

  /**
   * What a bulk load (a full rebuild) does with the non-unique indexes: `keep` them, maintained row by
   * row by the writer thread while the event loop projects the next batch (the default with a writer
   * thread: the work overlaps, measured ~15 % faster on 2 cores), or `drop` them and build each once
   * at the end (the default inline, where one thread does everything and a sorted build is cheaper).
   */
  private readonly bulkLoadIndexes: 'keep' | 'drop';

  constructor(readonly file: string, options: { writer?: SqliteWriterMode; bulkLoadIndexes?: 'keep' | 'drop' } = {}) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position TEXT NOT NULL)');
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${TOMBSTONES} (collection TEXT NOT NULL, id TEXT NOT NULL, position TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID`);
    this.cacheSize = this.db.pragma('cache_size', { simple: true }) as number;
    this.writer = writerModeFor(file, options.writer) === 'thread' ? new SqliteWriterThread(file, 'reads') : null;
    this.bulkLoadIndexes = options.bulkLoadIndexes ?? (this.writer ? 'keep' : 'drop');
  }

  /** Why the writer thread last stopped with a commit in flight (null: writing normally): /health shows it. */
  get writerFailure(): Error | null {
    return this.writer?.failure ?? null;
  }

  /** The connection's page cache size as opened (restored after a bulk load). */
  private readonly cacheSize: number;
  /** The committing connection's WAL auto-checkpoint when a bulk load began (restored at its end). */
  private autoCheckpoint: number | null = null;

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    for (const spec of specs) {
      const t = table(spec.name);
      const fields = [...new Set([...spec.indexes.flatMap((i) => i.fields.map(checkName)), POSITION])];
      // Nothing to do (the usual case after the first start): no write transaction, so this also
      // works while the database is read-only (`/health` ensures the status collection).
      if (this.upToDate(t, spec, fields)) continue;
      this.db
        .transaction(() => {
          this.db.exec(`CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
          const have = new Set(this.columnsOf(t));
          for (const f of fields) {
            if (have.has(f)) continue;
            // A table from before the columns (or a newly indexed field): add the column and fill it
            // from the documents, as the writes will.
            this.db.exec(`ALTER TABLE ${t} ADD COLUMN ${column(f)}`);
            this.db.exec(`UPDATE ${t} SET ${column(f)} = ${extract(f)}`);
          }
          for (const index of spec.indexes) {
            const name = index.fields.map(checkName).join('__');
            const columns = index.fields.map(column);
            if (index.unique) {
              this.db.exec(`DROP INDEX IF EXISTS ${t}__${name}`); // the former expression index
              this.db.exec(`CREATE UNIQUE INDEX IF NOT EXISTS ${t}__x__${name} ON ${t} (${columns.join(', ')})`);
            } else {
              this.db.exec(`DROP INDEX IF EXISTS ${t}__${name}__id`);
              // `id` last: lists sort by the last field then by id, so the index serves the whole ORDER BY
              // (without it SQLite sorts every row that ties, e.g. 100k deadlines due at one instant).
              const on = `${t} (${[...columns, 'id'].join(', ')})`;
              if (index.sparseOn && index.fields.includes(index.sparseOn)) {
                // A partial index: SQLite uses it for `column = ?` (which implies IS NOT NULL).
                this.db.exec(`DROP INDEX IF EXISTS ${t}__x__${name}__id`);
                this.db.exec(`CREATE INDEX IF NOT EXISTS ${t}__xp__${name}__id ON ${on} WHERE ${column(index.sparseOn)} IS NOT NULL`);
              } else {
                this.db.exec(`DROP INDEX IF EXISTS ${t}__xp__${name}__id`);
                this.db.exec(`CREATE INDEX IF NOT EXISTS ${t}__x__${name}__id ON ${on}`);
              }
            }
          }
        })
        .immediate();
      this.shapes.delete(spec.name);
    }
  }

  /** The table exists with a column per indexed field and each index in its current form (and none in a former one). */
  private upToDate(t: string, spec: CollectionSpec, fields: string[]): boolean {
    const names = new Set((this.db.prepare('SELECT name FROM sqlite_master WHERE tbl_name = ?').all(t) as { name: string }[]).map((r) => r.name));
    if (!names.has(t)) return false;
    const have = new Set(this.columnsOf(t));
    if (!fields.every((f) => have.has(f))) return false;
    return spec.indexes.every((index) => {
      const name = index.fields.map(checkName).join('__');
      if (index.unique) return names.has(`${t}__x__${name}`) && !names.has(`${t}__${name}`);
      const sparse = Boolean(index.sparseOn && index.fields.includes(index.sparseOn));
      const [current, former] = sparse ? [`${t}__xp__${name}__id`, `${t}__x__${name}__id`] : [`${t}__x__${name}__id`, `${t}__xp__${name}__id`];
      return names.has(current) && !names.has(former) && !names.has(`${t}__${name}__id`);
    });
  }

  /** The indexed fields a table has a column for. */
  private columnsOf(t: string): string[] {
    return (this.db.prepare(`PRAGMA table_info(${t})`).all() as { name: string }[]).filter((c) => COLUMN.test(c.name)).map((c) => c.name.slice(2));
  }

  /** A collection's columns and statements, read from its table once (another process may have created it). */
  private shape(collection: string): Shape {
    let shape = this.shapes.get(collection);
    if (!shape) {
      const t = table(collection);
      const fields = this.columnsOf(t);
      const names = ['id', 'doc', ...fields.map(column)];
      const updates = names.slice(1).map((n) => `${n} = excluded.${n}`);
      const positioned = fields.includes(POSITION);
      const p = column(POSITION);
      // `collection` is a checked name (NAME).
      const tombstones = `FROM ${TOMBSTONES} WHERE collection = '${collection}'`;
      const sql = [
        `INSERT INTO ${t} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ON CONFLICT(id) DO UPDATE SET ${updates.join(', ')} ${positioned ? notOlder(t) : ''}`,
        `DELETE FROM ${t} WHERE id = ?`,
        ...(positioned
          ? [
              // (id, position): removes the row unless it is later than the delete, and records the tombstone.
              `DELETE FROM ${t} WHERE id = ? AND (${p} IS NULL OR ${p} <= ?)`,
              `INSERT INTO ${TOMBSTONES} (collection, id, position) VALUES ('${collection}', ?, ?) ON CONFLICT(collection, id) DO UPDATE SET position = max(position, excluded.position)`,
              // Asked once per commit: with none (the usual case) no write looks one up.
              `SELECT 1 ${tombstones} LIMIT 1`,
              `SELECT position ${tombstones} AND id = ?`,
            ]
          : []),
      ];
      shape = { fields, positionAt: fields.indexOf(POSITION), sql };
      this.shapes.set(collection, shape);
    }
    return shape;
  }

  async get<T>(collection: string, id: string): Promise<T | null> {
    const row = this.stmt(`SELECT doc FROM ${table(collection)} WHERE id = ?`).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async getMany<T>(collection: string, ids: string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    const stmt = this.stmt(`SELECT id, doc FROM ${table(collection)} WHERE id = ?`);
    for (const id of new Set(ids)) {
      const row = stmt.get(id) as { id: string; doc: string } | undefined;
      if (row) found.set(row.id, JSON.parse(row.doc) as T);
    }
    return found;
  }

  async find<T>(collection: string, query: FindQuery): Promise<T[]> {
    const indexed = this.shape(collection).fields;
    const field = (name: string) => (indexed.includes(name) ? column(name) : extract(name));
    const clauses: string[] = [];
    const params: Array<string | number | null> = [];
    for (const [name, value] of Object.entries(query.where ?? {})) {
      if (Array.isArray(value)) {
        if (value.length === 0) return [];
        clauses.push(`${field(name)} IN (${value.map(() => '?').join(', ')})`);
        params.push(...value.map(bindable));
      } else if (value === null) {
        clauses.push(`${field(name)} IS NULL`);
      } else {
        clauses.push(`${field(name)} = ?`);
        params.push(bindable(value));
      }
    }
    if (query.prefix) {
      // The primary key is its own column; text only (a number or null is never in a text range).
      const f = query.prefix.field === 'id' ? 'id' : field(query.prefix.field);
      clauses.push(`${f} >= ? AND ${f} < ?`);
      params.push(query.prefix.value, prefixEnd(query.prefix.value));
    }
    const sort = field(query.orderBy.field);
    const desc = query.orderBy.direction === 'desc';
    const dir = desc ? 'DESC' : 'ASC';
    const run = (extra: string | null, extraParams: Array<string | number | null>, limit: number) => {
      const all = extra ? [...clauses, extra] : clauses;
      const where = all.length ? `WHERE ${all.join(' AND ')}` : '';
      const sql = `SELECT doc FROM ${table(collection)} ${where} ORDER BY ${sort} ${dir}, id ${dir} LIMIT ?`;
      return (this.stmt(sql).all(...params, ...extraParams, limit) as Array<{ doc: string }>).map((r) => JSON.parse(r.doc) as T);
    };
    if (!query.after) return run(null, [], query.limit);
    // Nulls (and missing fields) sort first ascending and last descending, as in MongoDB. A row-value
    // comparison (an index range scan) never matches NULL, so the nulls are a second range, read
    // only when the first one runs out: each part keeps its index order.
    const { value, id } = query.after;
    if (value === null) {
      if (desc) return run(`${sort} IS NULL AND id < ?`, [id], query.limit);
      const nulls = run(`${sort} IS NULL AND id > ?`, [id], query.limit);
      return nulls.length < query.limit ? [...nulls, ...run(`${sort} IS NOT NULL`, [], query.limit - nulls.length)] : nulls;
    }
    const rest = run(`(${sort}, id) ${desc ? '<' : '>'} (?, ?)`, [bindable(value), id], query.limit);
    if (!desc || rest.length >= query.limit) return rest;
    return [...rest, ...run(`${sort} IS NULL`, [], query.limit - rest.length)];
  }

  async commit(writes: DocumentWrite[], checkpoint?: Checkpoint | Checkpoint[], fence?: Fence): Promise<void> {
    const checkpoints = checkpoint === undefined ? [] : Array.isArray(checkpoint) ? checkpoint : [checkpoint];
    assertStorable(writes);
    const token: FenceToken | null = fence ? [fence.unit, fence.holder, fence.epoch] : null;
    if (this.writer) return this.commitInThread(this.writer, this.rowsOf(writes), checkpoints.map((c) => [c.name, c.position]), token);
    const ops = (this.inlineWrites ??= readModelWrites(this.db));
    try {
      // Row by row (each document's JSON is written as soon as it is made): the same writes as the
      // writer thread's, without gathering the whole commit first.
      this.db
        .transaction(() => {
          ops.fence(token);
          const tombstoned = new Map<string, boolean>();
          for (const w of writes) {
            const { fields, positionAt, sql } = this.shape(w.collection);
            ops.write(w.collection, positionAt, sql, pushRow([], w, fields), tombstoned);
          }
          for (const c of checkpoints) ops.checkpoint(c.name, c.position);
        })
        .immediate();
    } catch (error) {
      // The whole transaction rolled back: nothing of this commit landed.
      const unique = (error as { unique?: { collection: string; detail: string } }).unique;
      if (unique) throw new UniqueConstraintError(unique.collection, unique.detail);
      const fenced = (error as { fenced?: Fence }).fenced;
      if (fenced) throw new FencedError(fenced);
      throw error;
    }
  }

  /**
   * The documents as strings and column values, in the form the commit takes (inline or in the writer
   * thread, whose message copies it far faster than an array per row): rows grouped by collection
   * (its statements once), one flat array of strings and scalars per collection: `[id, doc JSON |
   * null, ...column values, id, …]`. Each collection's writes keep their order.
   */
  private rowsOf(writes: DocumentWrite[]): ReadModelRows {
    const groups = new Map<string, { shape: Shape; flat: ReadModelRow }>();
    for (const w of writes) {
      let group = groups.get(w.collection);
      if (!group) groups.set(w.collection, (group = { shape: this.shape(w.collection), flat: [] }));
      pushRow(group.flat, w, group.shape.fields);
    }
    // The statements' SQL, built once in `shape` (the writer thread prepares the same ones).
    return [...groups].map(([collection, { shape, flat }]) => [
      collection,
      shape.positionAt,
      shape.fields.length,
      flat,
      shape.sql,
    ]);
  }

  /** The transaction in the writer thread (its own connection); resolves once it committed. */
  private async commitInThread(writer: SqliteWriterThread, rows: ReadModelRows, checkpoints: Array<[string, string]>, fence: FenceToken | null): Promise<void> {
    const sent = writer.request('commit', fence ? { rows, checkpoints, fence } : { rows, checkpoints });
    this.inFlight.add(sent);
    try {
      await sent;
    } catch (error) {
      if (error instanceof Error) throw error;
      const info = error as WriterErrorInfo;
      if (info.unique) throw new UniqueConstraintError(info.unique.collection, info.unique.detail);
      if (info.fenced) throw new FencedError(info.fenced);
      throw writerError(info);
    } finally {
      this.inFlight.delete(sent);
    }
  }

  /**
   * Starts the writer thread now (with a file, in thread mode), and with it the WAL checkpointer that
   * runs beside it: for when another connection does the commits (the projection pipeline's thread),
   * which then needs no checkpoint of its own. Nothing to do inline.
   */
  async startCheckpointer(): Promise<void> {
    if (this.writer) await this.writerPragma('wal_autocheckpoint');
  }

  /** A pragma on the connection that writes (pragmaOnWriter). */
  writerPragma(pragma: string): Promise<unknown> {
    return pragmaOnWriter(this.writer, this.db, pragma);
  }

  /**
   * Compare-and-set in an IMMEDIATE transaction on the connection that commits (the writer thread's,
   * or this one inline): the write lock is taken before the document is read, so two processes cannot
   * both see the expected document, and waiting for the lock (busy_timeout, while another process
   * commits) never blocks the event loop.
   */
  async swap(collection: string, id: string, expected: Record<string, Scalar> | null, doc: Record<string, unknown>): Promise<boolean> {
    const write: DocumentWrite = { collection, id, doc };
    assertStorable([write]);
    const { fields, sql } = this.shape(collection);
    const request: SwapRequest = { readSql: `SELECT doc FROM ${table(collection)} WHERE id = ?`, upsertSql: sql[0], id, expected, row: pushRow([], write, fields) };
    if (!this.writer) return (this.inlineWrites ??= readModelWrites(this.db)).swap(request);
    const sent = this.writer.request('swap', request);
    this.inFlight.add(sent);
    try {
      return (await sent) as boolean;
    } catch (error) {
      throw error instanceof Error ? error : writerError(error as WriterErrorInfo);
    } finally {
      this.inFlight.delete(sent);
    }
  }

  async getCheckpoint(name: string): Promise<string | null> {
    const row = this.stmt('SELECT position FROM checkpoints WHERE name = ?').get(name) as { position: string } | undefined;
    return row?.position ?? null;
  }

  async reset(collections: string[], checkpointName: string): Promise<void> {
    // A commit still in the writer thread must not land after the reset.
    await Promise.allSettled([...this.inFlight]);
    this.db
      .transaction(() => {
        for (const c of collections) {
          const exists = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table(c));
          if (exists) this.db.exec(`DELETE FROM ${table(c)}`);
          this.db.prepare(`DELETE FROM ${TOMBSTONES} WHERE collection = ?`).run(checkName(c));
        }
        this.db.prepare('DELETE FROM checkpoints WHERE name = ?').run(checkpointName);
      })
      .immediate();
  }

  async beginBulkLoad(specs: CollectionSpec[]): Promise<void> {
    if (this.bulkLoadIndexes === 'drop') this.dropNonUniqueIndexes(specs);
    // A larger page cache while the load runs, and the WAL copied into the database file every 256 MiB
    // rather than after nearly every (multi-MiB) commit. Each commit is in the WAL as before, so
    // durability is unchanged; endBulkLoad checkpoints what is left.
    // Set on the connection that writes (the writer thread's in thread mode), where the commits run.
    // What to restore at the end: the committing connection's own setting (0 in a writer thread, whose
    // checkpointer thread checkpoints beside the commits).
    this.autoCheckpoint = (await this.writerPragma('wal_autocheckpoint')) as number;
    await this.writerPragma(`cache_size = ${BULK_CACHE_SIZE}`);
    await this.writerPragma(`wal_autocheckpoint = ${BULK_WAL_AUTOCHECKPOINT}`);
  }

  private dropNonUniqueIndexes(specs: CollectionSpec[]): void {
    this.db
      .transaction(() => {
        for (const spec of specs) {
          const t = table(spec.name);
          for (const index of spec.indexes) {
            if (index.unique) continue; // enforced row by row, as outside a rebuild
            const name = index.fields.map(checkName).join('__');
            for (const n of [`${t}__x__${name}__id`, `${t}__xp__${name}__id`, `${t}__${name}__id`]) this.db.exec(`DROP INDEX IF EXISTS ${n}`);
          }
        }
      })
      .immediate();
  }

  async endBulkLoad(specs: CollectionSpec[]): Promise<void> {
    try {
      await this.ensureCollections(specs);
    } finally {
      await this.writerPragma(`cache_size = ${this.cacheSize}`);
      if (this.autoCheckpoint !== null) await this.writerPragma(`wal_autocheckpoint = ${this.autoCheckpoint}`);
      // Everything loaded goes into the database file (synced) and the WAL, as large as the load, is
      // emptied; busy readers only make this a partial checkpoint, which the next commits finish.
      // Every commit is already in the WAL, so a checkpoint that fails (disk full) loses nothing.
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        /* the next auto-checkpoint does it */
      }
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await this.writer?.close();
    this.db.close();
  }
}
