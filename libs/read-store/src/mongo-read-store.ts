import { type MongoBulkWriteError, MongoClient, MongoServerError } from 'mongodb';
import type { AnyBulkWriteOperation, ClientSession, Collection, Db, Document, Filter, IndexDirection } from 'mongodb';
import { assertStorable, type Checkpoint, type Fence, FencedError, LEASES_COLLECTION, type CollectionSpec, type DocumentWrite, type FindQuery, prefixEnd, type ReadStore, type Scalar, UniqueConstraintError } from './read-store.port.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_DATABASE = 'billing';
const CHECKPOINTS = 'checkpoints';
/** Server error code for "collection already exists". */
const NAMESPACE_EXISTS = 48;
/** Server error code for a unique index violation (E11000). */
const DUPLICATE_KEY = 11000;

/**
 * The server's message when `error` is a unique index violation, else null. `bulkWrite` throws
 * MongoBulkWriteError (a MongoServerError) whose `code` and message are its first write error's and
 * whose `writeErrors` (one, or an array) hold each `{index, code, errmsg}`; a single operation throws
 * MongoServerError with `code` 11000.
 */
function duplicateKeyMessage(error: unknown): string | null {
  if (!(error instanceof MongoServerError)) return null;
  if (error.code === DUPLICATE_KEY) return error.message;
  const writeErrors = (error as Partial<MongoBulkWriteError>).writeErrors;
  const list = writeErrors === undefined ? [] : Array.isArray(writeErrors) ? writeErrors : [writeErrors];
  const found = list.find((w) => w.code === DUPLICATE_KEY);
  return found ? found.errmsg ?? error.message : null;
}
/** Every BSON type a JSON value can have except null: what a unique index indexes (see ensureCollections). */
const NON_NULL_JSON_TYPES = ['string', 'number', 'bool', 'object', 'array'];

function checkName(name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid collection or field name: ${name}`);
  return name;
}

const collectionName = (collection: string) => `rm_${checkName(collection)}`;

/** Marks what a positioned delete leaves behind: invisible to every read, it keeps the delete's position. */
export const TOMBSTONE = '_tombstone';
const POSITION = '_position';

/** One bulk write: the ops of one collection (or the checkpoints), in the order they must run. */
export interface CommitStep {
  collection: string;
  ops: AnyBulkWriteOperation<StoredDoc>[];
}

/**
 * What `commit` sends, in order (pure, so the order and the conditions are tested without a server):
 *
 * 1. Derived entries (writes without a position, e.g. the feed's `events`): plain replaces, the same
 *    whenever they are written, one bulk write per collection.
 * 2. Positioned documents (a projection's own documents): each lands only over an older document
 *    (`_position` lower or absent), as one pipeline update (no duplicate-key error that would abort a
 *    transaction); a delete leaves a tombstone at its position. So a slower worker holding an older
 *    batch can never overwrite a newer document, nor bring back a deleted one.
 * 3. Checkpoints, with `$max` (they never move backwards).
 *
 * Without transactions a crash can stop anywhere in this sequence and redelivery repairs it: the
 * derived entries of a batch are written before the documents whose `_position` would make
 * redelivery skip the events that derive them, and the checkpoint comes last.
 */
export function planCommit(writes: DocumentWrite[], checkpoints: Checkpoint[]): { steps: CommitStep[] } {
  const derived = new Map<string, AnyBulkWriteOperation<StoredDoc>[]>();
  const positioned = new Map<string, AnyBulkWriteOperation<StoredDoc>[]>();
  for (const w of writes) {
    const name = collectionName(w.collection);
    const target = w.position === undefined ? derived : positioned;
    let ops = target.get(name);
    if (!ops) target.set(name, (ops = []));
    if (w.position === undefined) {
      if (w.doc === null) ops.push({ deleteOne: { filter: { _id: w.id } } });
      else ops.push({ replaceOne: { filter: { _id: w.id }, replacement: normalize(w.id, w.doc), upsert: true } });
    } else {
      const next = w.doc === null ? { _id: w.id, [POSITION]: w.position, [TOMBSTONE]: true } : { ...normalize(w.id, w.doc), _id: w.id, [POSITION]: w.position };
      ops.push({
        updateOne: {
          filter: { _id: w.id },
          update: [{ $replaceWith: { $cond: { if: { $lt: [{ $ifNull: [`$${POSITION}`, ''] }, w.position] }, then: { $literal: next }, else: '$$ROOT' } } }],
          upsert: true,
        },
      });
    }
  }
  const steps: CommitStep[] = [];
  for (const [collection, ops] of derived) steps.push({ collection, ops });
  for (const [collection, ops] of positioned) steps.push({ collection, ops });
  if (checkpoints.length) {
    steps.push({
      collection: CHECKPOINTS,
      // `$max` only ever moves the position forward (positions compare as strings) and, unlike a
      // conditional upsert, raises no duplicate-key error that would abort a transaction.
      ops: checkpoints.map((c) => ({ updateOne: { filter: { _id: c.name }, update: { $max: { position: c.position } }, upsert: true } })),
    });
  }
  return { steps };
}

/** A read-model document as stored: the document's own fields plus `_id` = its id. */
interface StoredDoc {
  _id: string;
  [field: string]: unknown;
}

interface CheckpointDoc {
  _id: string;
  position: string;
}

/** Database name from the URL path (`mongodb://host/<db>?…`), `billing` when absent. */
function databaseName(url: string): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/i.exec(url);
  const name = match ? decodeURIComponent(match[1]) : '';
  return name || DEFAULT_DATABASE;
}

/** The document as JSON would carry it (what the SQLite store returns), checked to be storable. */
function normalize(id: string, doc: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(json, '_id')) {
    throw new Error(`document ${id}: a read-model document cannot have its own _id field`);
  }
  return json;
}

function strip<T>(stored: StoredDoc): T {
  const { _id, ...doc } = stored;
  return doc as T;
}

/**
 * Read-model store on MongoDB: one collection `rm_<name>` per read-model collection, documents
 * stored as they are with `_id` = their id, checkpoints in `checkpoints` (`_id` = name).
 *
 * A commit is one transaction when the server is a replica set or a sharded cluster; on a
 * standalone server its bulk writes run one after the other in the order `planCommit` gives, which
 * makes a crash between them harmless (see there).
 *
 * Queries mirror the SQLite store's semantics: equality does not match inside arrays, null matches
 * null or missing, null never matches inside an any-of list.
 */
export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb';
  private readonly client: MongoClient;
  private readonly db: Db;
  private transactions?: Promise<boolean>;
  private checkpointsReady?: Promise<void>;

  constructor(url: string) {
    this.client = new MongoClient(url);
    this.db = this.client.db(databaseName(url));
  }

  private collection(name: string): Collection<StoredDoc> {
    return this.db.collection<StoredDoc>(collectionName(name));
  }

  private get checkpoints(): Collection<CheckpointDoc> {
    return this.db.collection<CheckpointDoc>(CHECKPOINTS);
  }

  private async createCollection(name: string): Promise<void> {
    try {
      await this.db.createCollection(name);
    } catch (error) {
      if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
    }
  }

  /** Collections cannot always be created inside a transaction: make `checkpoints` exist beforehand. */
  private ensureCheckpoints(): Promise<void> {
    this.checkpointsReady ??= this.createCollection(CHECKPOINTS).catch((error) => {
      this.checkpointsReady = undefined;
      throw error;
    });
    return this.checkpointsReady;
  }

  /** Transactions need a replica set (`setName`) or mongos (`msg: 'isdbgrid'`); asked once. */
  private supportsTransactions(): Promise<boolean> {
    this.transactions ??= this.detectTransactions().catch((error) => {
      this.transactions = undefined;
      throw error;
    });
    return this.transactions;
  }

  private async detectTransactions(): Promise<boolean> {
    const admin = this.client.db('admin');
    let hello: Document;
    try {
      hello = await admin.command({ hello: 1 });
    } catch (error) {
      if (!(error instanceof MongoServerError)) throw error;
      hello = await admin.command({ isMaster: 1 }); // servers older than 4.4.2
    }
    return typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  }

  async ensureCollections(specs: CollectionSpec[]): Promise<void> {
    await this.ensureCheckpoints();
    for (const spec of specs) {
      const name = collectionName(spec.name);
      await this.createCollection(name);
      for (const index of spec.indexes) {
        const fields = index.fields.map(checkName);
        const keys: Record<string, IndexDirection> = {};
        for (const f of fields) keys[f] = 1;
        if (index.unique) {
          // Like SQLite's UNIQUE (NULLs are distinct): documents with any of the fields null or
          // missing are left out of the index instead of colliding with each other.
          const partialFilterExpression: Document = {};
          for (const f of fields) partialFilterExpression[f] = { $type: NON_NULL_JSON_TYPES };
          await this.db
            .collection(name)
            .createIndex(keys, { name: `${fields.join('__')}__unique`, unique: true, partialFilterExpression });
        } else {
          // `_id` last, so a filtered query sorted by the last field (then by id) is served by the index.
          if (!fields.includes('_id')) keys._id = 1;
          await this.db.collection(name).createIndex(keys, { name: fields.join('__') });
        }
      }
    }
  }

  async get<T>(collection: string, id: string): Promise<T | null> {
    const found = await this.collection(collection).findOne({ _id: id, [TOMBSTONE]: { $exists: false } });
    return found ? strip<T>(found) : null;
  }

  async getMany<T>(collection: string, ids: string[]): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    const unique = [...new Set(ids)];
    if (unique.length === 0) return found;
    const docs = await this.collection(collection)
      .find({ _id: { $in: unique }, [TOMBSTONE]: { $exists: false } })
      .toArray();
    for (const doc of docs) found.set(doc._id, strip<T>(doc));
    return found;
  }

  async find<T>(collection: string, query: FindQuery): Promise<T[]> {
    if (query.limit <= 0) return [];
    const and: Document[] = [];
    for (const [name, value] of Object.entries(query.where ?? {})) {
      const f = checkName(name);
      if (Array.isArray(value)) {
        // SQLite's `IN (…)` never matches NULL, so null in the list matches nothing.
        const values = value.filter((v) => v !== null);
        if (values.length === 0) return [];
        and.push({ [f]: { $in: values, $not: { $type: 'array' } } });
      } else {
        // `$eq: null` matches null or missing, as json_extract(…) IS NULL does. Arrays are excluded:
        // Mongo would match an element of an array, SQLite compares the whole value.
        and.push({ [f]: { $eq: value, $not: { $type: 'array' } } });
      }
    }
    if (query.prefix) {
      // String bounds match strings only, compared by their UTF-8 bytes as SQLite does.
      const f = query.prefix.field === 'id' ? '_id' : checkName(query.prefix.field);
      and.push({ [f]: { $gte: query.prefix.value, $lt: prefixEnd(query.prefix.value) } });
    }
    const sortField = checkName(query.orderBy.field);
    const desc = query.orderBy.direction === 'desc';
    const dir = desc ? -1 : 1;
    and.push({ [TOMBSTONE]: { $exists: false } });
    const run = async (extra: Document[], limit: number) => {
      const filter = { $and: [...and, ...extra] } as Filter<StoredDoc>;
      const docs = await this.collection(collection)
        .find(filter, { sort: { [sortField]: dir, _id: dir }, limit })
        .toArray();
      return docs.map((doc) => strip<T>(doc));
    };
    if (!query.after) return run([], query.limit);
    // Null and missing sort first ascending, last descending (MongoDB's order, which the SQLite store
    // keeps too). Comparison operators never match null across types, so the nulls are their own
    // range, read only when the other runs out (each part an index range in sort order).
    const { value, id } = query.after;
    const op = desc ? '$lt' : '$gt';
    const isNull = { [sortField]: { $eq: null } };
    if (value === null) {
      if (desc) return run([isNull, { _id: { $lt: id } }], query.limit);
      const nulls = await run([isNull, { _id: { $gt: id } }], query.limit);
      if (nulls.length >= query.limit) return nulls;
      return [...nulls, ...(await run([{ [sortField]: { $ne: null } }], query.limit - nulls.length))];
    }
    const v: Scalar = value;
    // The first clause is implied by the second; it gives the planner a range on the sort field.
    const rest = await run(
      [{ [sortField]: { [desc ? '$lte' : '$gte']: v } }, { $or: [{ [sortField]: { [op]: v } }, { [sortField]: { $eq: v }, _id: { [op]: id } }] }],
      query.limit,
    );
    if (!desc || rest.length >= query.limit) return rest;
    return [...rest, ...(await run([isNull], query.limit - rest.length))];
  }

  async commit(writes: DocumentWrite[], checkpoint?: Checkpoint | Checkpoint[], fence?: Fence): Promise<void> {
    assertStorable(writes);
    const plan = planCommit(writes, checkpoint === undefined ? [] : Array.isArray(checkpoint) ? checkpoint : [checkpoint]);
    if (plan.steps.length === 0) return;
    try {
      await this.runPlan(plan, fence);
    } catch (error) {
      // E11000: a unique index refused a write (in a transaction, nothing of the commit landed).
      const duplicate = duplicateKeyMessage(error);
      if (duplicate !== null) throw new UniqueConstraintError(/collection: \S+\.rm_(\w+)/.exec(duplicate)?.[1] ?? 'read model', duplicate);
      throw error;
    }
  }

  /**
   * The fence of a commit. In a transaction the lease document itself is written (a counter bumped
   * where it names this holder and epoch): a worker taking the lease meanwhile conflicts with the
   * transaction, so the commit and a takeover never both land. Without transactions the lease is read
   * just before the writes: a takeover between that read and the writes is not caught (a window of one
   * commit, which the holder's own clock narrows: it stops acting before its lease can expire).
   */
  private async checkFence(fence: Fence, session?: ClientSession): Promise<void> {
    const leases = this.collection(LEASES_COLLECTION);
    const held = { _id: fence.unit, holder: fence.holder, epoch: fence.epoch };
    const ok = session ? (await leases.updateOne(held, { $inc: { _fenced_writes: 1 } } as never, { session })).matchedCount === 1 : (await leases.findOne(held)) !== null;
    if (!ok) throw new FencedError(fence);
  }

  private async runPlan(plan: { steps: CommitStep[] }, fence?: Fence): Promise<void> {
    const run = async (session?: ClientSession) => {
      if (fence) await this.checkFence(fence, session);
      for (const step of plan.steps) {
        if (step.collection === CHECKPOINTS) {
          await this.checkpoints.bulkWrite(step.ops as unknown as AnyBulkWriteOperation<CheckpointDoc>[], { ordered: true, session });
        } else {
          await this.db.collection<StoredDoc>(step.collection).bulkWrite(step.ops, { ordered: true, session });
        }
      }
    };
    if (await this.supportsTransactions()) {
      await this.ensureCheckpoints();
      const session = this.client.startSession();
      try {
        await session.withTransaction(() => run(session));
      } finally {
        await session.endSession();
      }
    } else {
      await run();
    }
  }

  /**
   * Compare-and-set: a replaceOne filtered on `_id` and the expected fields (null matches null or
   * missing, as the SQLite adapter compares), or, with `expected` null, an insertOne that the `_id`
   * index refuses (E11000) when the document exists. One document: atomic on every server.
   */
  async swap(collection: string, id: string, expected: Record<string, Scalar> | null, doc: Record<string, unknown>): Promise<boolean> {
    assertStorable([{ collection, id, doc }]);
    const replacement = normalize(id, doc);
    if (expected === null) {
      try {
        await this.collection(collection).insertOne({ ...replacement, _id: id });
        return true;
      } catch (error) {
        if (duplicateKeyMessage(error) !== null) return false;
        throw error;
      }
    }
    const filter: Filter<StoredDoc> = { _id: id, [TOMBSTONE]: { $exists: false } };
    for (const [field, value] of Object.entries(expected)) (filter as Document)[checkName(field)] = value;
    const result = await this.collection(collection).replaceOne(filter, replacement);
    return result.matchedCount === 1;
  }

  async getCheckpoint(name: string): Promise<string | null> {
    const found = await this.checkpoints.findOne({ _id: name });
    return found?.position ?? null;
  }

  /**
   * The checkpoint goes first: a crash part-way leaves documents to be rebuilt over, never a
   * checkpoint claiming documents that were deleted.
   */
  async reset(collections: string[], checkpointName: string): Promise<void> {
    const names = collections.map(collectionName);
    await this.checkpoints.deleteOne({ _id: checkpointName });
    for (const name of names) await this.db.collection(name).deleteMany({});
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
