/**
 * The read-model store port: JSON documents in named collections, served to every GET.
 * Two adapters (embedded SQLite, MongoDB) pass one contract suite (test/contract/read-store.contract.ts).
 *
 * Documents are plain JSON objects with a string `id`. Fields whose name starts with `_`
 * are internal (tenant, sort keys, last applied position) and are stripped before a document
 * leaves the service.
 */

export type Scalar = string | number | boolean | null;

/** The exclusive upper end of a prefix range: every string starting with the prefix sorts below it (for text without characters above U+FFFF). */
export const prefixEnd = (prefix: string): string => `${prefix}\uffff`;

export interface IndexSpec {
  /** Field paths (top-level names) in index order. */
  fields: string[];
  unique?: boolean;
  /**
   * Only documents whose value of this field (one of `fields`) is set, not null or missing, need to
   * be in the index: the queries it serves have an equality on that field. A hint that spares an
   * index entry per document without one (the event feed's `_subscription`, `_customer`); the
   * embedded store honours it, MongoDB indexes every document as before.
   */
  sparseOn?: string;
}

export interface CollectionSpec {
  name: string;
  indexes: IndexSpec[];
}

export interface FindQuery {
  /** Equality on top-level fields; an array value means "any of". */
  where?: Record<string, Scalar | Scalar[]>;
  /**
   * Strings on a top-level field that start with `value` (a range `>= value` and `< value + '\uffff'`,
   * compared code unit by code unit; other types never match). Serve it with an index whose fields are
   * the `where` equalities then this field (on `id`: every index ends in it on SQLite; MongoDB has `_id`).
   */
  prefix?: { field: string; value: string };
  /** Sort field (top-level, string or number) with `id` as tie-breaker in the same direction. */
  orderBy: { field: string; direction: 'asc' | 'desc' };
  /** Keyset cursor: only documents strictly after this (value, id) pair in the sort order. */
  after?: { value: Scalar; id: string };
  limit: number;
}

export interface DocumentWrite {
  collection: string;
  id: string;
  /** The whole new document, or null to delete it. */
  doc: Record<string, unknown> | null;
  /**
   * The position of the event this write reflects (a projected document's `_position`). Absent for
   * derived entries, which are the same whenever they are written. Several workers may write at
   * once, so on every adapter a write with a position only lands over an older document (and not
   * over a later delete), and a delete leaves a tombstone at its position: a slower worker never
   * brings back an older version.
   */
  position?: string;
}

export interface Checkpoint {
  name: string;
  position: string;
}

/** The collection of the workers' leases (libs/platform/src/leases.ts), which a fenced commit reads. */
export const LEASES_COLLECTION = 'leases';

/**
 * A fencing token: the lease (a document of `leases`, id = the unit of work) under which a worker
 * writes, with the holder and epoch it believes it holds. A commit carrying it lands only while that
 * lease document still names this holder at this epoch; otherwise it is refused whole (FencedError).
 */
export interface Fence {
  unit: string;
  holder: string;
  epoch: number;
}

/** A commit's fence no longer holds: another worker took the lease (a later epoch). Nothing of the commit landed where the store is transactional. */
export class FencedError extends Error {
  readonly code = 'ERR_LEASE_FENCED';
  constructor(readonly fence: Fence) {
    super(`lease ${fence.unit} is no longer held by ${fence.holder} at epoch ${fence.epoch}: the write is refused`);
    this.name = 'FencedError';
  }
}

export interface ReadStore {
  readonly kind: string;
  /** Creates the collection and its indexes if missing. */
  ensureCollections(specs: CollectionSpec[]): Promise<void>;
  get<T = Record<string, unknown>>(collection: string, id: string): Promise<T | null>;
  getMany<T = Record<string, unknown>>(collection: string, ids: string[]): Promise<Map<string, T>>;
  find<T = Record<string, unknown>>(collection: string, query: FindQuery): Promise<T[]>;
  /**
   * Writes documents and moves checkpoints forward, atomically where the engine allows (on a store
   * without transactions: derived entries first, then positioned documents, then checkpoints, so a
   * crash in between is repaired by redelivery). A checkpoint never moves backwards.
   * With `fence`, the commit lands only while the lease it names is still held at its epoch
   * (FencedError otherwise): checked inside the transaction on SQLite (and on MongoDB with
   * transactions); on a MongoDB server without transactions, read just before the writes.
   */
  commit(writes: DocumentWrite[], checkpoint?: Checkpoint | Checkpoint[], fence?: Fence): Promise<void>;
  getCheckpoint(name: string): Promise<string | null>;
  /**
   * Compare-and-set of one document, atomic across processes (leases): replaces `collection/id` with
   * `doc` only if the stored document's fields named in `expected` all equal the given values (a
   * missing field equals null), or, with `expected` null, only if there is no document. True when it
   * replaced it. Not for projected documents (no `_position` rule applies).
   */
  swap(collection: string, id: string, expected: Record<string, Scalar> | null, doc: Record<string, unknown>): Promise<boolean>;
  /** Drops the collections' documents and the checkpoint (projection rebuild). */
  reset(collections: string[], checkpointName: string): Promise<void>;
  /**
   * Optional, a full rebuild's fast path: the collections (just reset, empty) are about to be filled
   * from the first event. The store may tune itself for the load, and may drop their indexes that are
   * not unique, so each write costs only its row; `endBulkLoad` builds them once over the filled
   * collections (a sorted build). Unique indexes stay, so a duplicate is refused at the write that
   * makes it, as outside a rebuild. Reads stay correct meanwhile (slower). Should the process stop
   * before `endBulkLoad`, the next `ensureCollections` (every start) builds the missing indexes.
   */
  beginBulkLoad?(specs: CollectionSpec[]): Promise<void>;
  /** Ends what beginBulkLoad started: every index of the collections exists again. */
  endBulkLoad?(specs: CollectionSpec[]): Promise<void>;
  close(): Promise<void>;
}

/** A write would give a second document the same value(s) of a unique index: refused, nothing of the commit lands where the store is transactional. */
export class UniqueConstraintError extends Error {
  constructor(
    readonly collection: string,
    readonly detail: string,
  ) {
    super(`${collection}: a document with the same unique key exists (${detail})`);
    this.name = 'UniqueConstraintError';
  }
}

/** A document no store can hold (checked by every adapter before anything is sent): nothing of the commit is written. */
export class UnstorableDocumentError extends Error {
  constructor(
    readonly collection: string,
    readonly id: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${collection}/${id}: ${path || 'the document'} ${reason}`);
    this.name = 'UnstorableDocumentError';
  }
}

/**
 * Deepest nesting a document may have. MongoDB refuses documents nested more than 100 levels; the
 * API refuses bodies nested more than 32 (libs/http/src/json-body.ts), and a document wraps a body's
 * free-form objects in a few levels of its own.
 */
export const MAX_DOCUMENT_DEPTH = 64;

/**
 * What every adapter checks before a commit reaches its engine: field names without NUL or other
 * control characters, not starting with `$` and without `.` (MongoDB's field-name rules; SQLite
 * would hold them but a document must be portable between the stores), no nesting deeper than
 * MAX_DOCUMENT_DEPTH, only JSON values (no BigInt, function or symbol), and no `_id` of its own.
 * Throws UnstorableDocumentError naming the document and the field.
 */
export function assertStorable(writes: readonly DocumentWrite[]): void {
  for (const w of writes) {
    if (typeof w.id !== 'string' || w.id.length === 0 || /[\u0000]/.test(w.id)) {
      throw new UnstorableDocumentError(w.collection, String(w.id), 'id', 'must be a non-empty string without NUL');
    }
    if (w.doc === null) continue;
    if (Object.prototype.hasOwnProperty.call(w.doc, '_id')) throw new UnstorableDocumentError(w.collection, w.id, '_id', 'is reserved for the store');
    checkValue(w, w.doc, '', 0);
  }
}

/** Field names already found storable: documents reuse a small vocabulary, so most names are checked once. */
const storableNames = new Set<string>();
const BAD_NAME = /[\u0000-\u001f\u007f.]|^\$/;

function checkName(w: DocumentWrite, key: string, path: string): void {
  if (storableNames.has(key)) return;
  if (BAD_NAME.test(key)) {
    const here = path ? `${path}.${key}` : key;
    if (/[\u0000-\u001f\u007f]/.test(key)) throw new UnstorableDocumentError(w.collection, w.id, JSON.stringify(here), 'is a field name with NUL or another control character');
    if (key.startsWith('$')) throw new UnstorableDocumentError(w.collection, w.id, here, 'is a field name starting with "$"');
    throw new UnstorableDocumentError(w.collection, w.id, here, 'is a field name containing "."');
  }
  if (storableNames.size > 50_000) storableNames.clear();
  storableNames.add(key);
}

/** JSON scalars (undefined is dropped by JSON and NaN/Infinity become null, in every store alike). */
function isScalar(value: unknown): boolean {
  const type = typeof value;
  return value === null || type === 'undefined' || type === 'string' || type === 'boolean' || type === 'number';
}

function checkValue(w: DocumentWrite, value: unknown, path: string, depth: number): void {
  if (isScalar(value)) return;
  if (typeof value !== 'object') throw new UnstorableDocumentError(w.collection, w.id, path, `is a ${typeof value}, not a JSON value`);
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return; // e.g. a Date: stored as its JSON text
  if (depth >= MAX_DOCUMENT_DEPTH) throw new UnstorableDocumentError(w.collection, w.id, path, `is nested more than ${MAX_DOCUMENT_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isScalar(value[i])) checkValue(w, value[i], `${path}[${i}]`, depth + 1);
    return;
  }
  for (const key in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    checkName(w, key, path);
    const item = (value as Record<string, unknown>)[key];
    if (!isScalar(item)) checkValue(w, item, path ? `${path}.${key}` : key, depth + 1);
  }
}
