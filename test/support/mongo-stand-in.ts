import { type AnyBulkWriteOperation, type Document, MongoBulkWriteError, MongoServerError } from 'mongodb';
import { MongoReadStore, TOMBSTONE } from '#read-store/mongo-read-store.js';

/**
 * An in-memory stand-in for the MongoDB driver's `Db`, for the operation shapes MongoReadStore sends,
 * with MongoDB's semantics where they differ from plain JavaScript: `null` matches null or missing,
 * comparison operators only match values of the same type (type bracketing), sorting orders types
 * null < numbers < strings < objects < arrays < booleans, a unique index with a partial filter
 * indexes only the documents matching it (E11000 on a duplicate), and an ordered bulk write stops at
 * its first error, keeping the writes before it (a server without transactions).
 *
 * No MongoDB server runs where the tests run; this lets the read-store contract and the pipeline's
 * crash tests run the adapter's real code. It can "crash" before the n-th bulk write from now.
 */
type Stored = Document & { _id: string };

interface UniqueIndex {
  name: string;
  fields: string[];
  partial?: Document;
}

export class MongoStandIn {
  readonly collections = new Map<string, Map<string, Stored>>();
  private readonly uniques = new Map<string, UniqueIndex[]>();
  /** Names of the collections bulk-written, in order. */
  bulkWrites: string[] = [];
  /** Throws before the n-th bulk write from now (a crash between two writes of one commit); from then on every call fails. */
  crashBefore: number | null = null;
  dead = false;

  private alive(): void {
    if (this.dead) throw new Error('crash');
  }

  private docs(name: string): Map<string, Stored> {
    let c = this.collections.get(name);
    if (!c) this.collections.set(name, (c = new Map()));
    return c;
  }

  async createCollection(name: string): Promise<void> {
    this.docs(name);
  }

  async command(): Promise<Document> {
    return { ok: 1 };
  }

  collection(name: string) {
    const docs = this.docs(name);
    const uniques = () => this.uniques.get(name) ?? [];
    return {
      createIndex: async (keys: Record<string, number>, options: { name?: string; unique?: boolean; partialFilterExpression?: Document } = {}) => {
        if (options.unique) {
          const list = uniques();
          if (!list.some((u) => u.name === options.name)) list.push({ name: options.name ?? Object.keys(keys).join('_'), fields: Object.keys(keys), partial: options.partialFilterExpression });
          this.uniques.set(name, list);
        }
        return options.name ?? 'index';
      },
      findOne: async (filter: Document) => {
        this.alive();
        const found = [...docs.values()].find((d) => matches(d, filter));
        return found ? structuredClone(found) : null;
      },
      find: (filter: Document, options: { sort?: Record<string, 1 | -1>; limit?: number } = {}) => ({
        toArray: async () => {
          this.alive();
          let out = [...docs.values()].filter((d) => matches(d, filter));
          if (options.sort) {
            const sort = Object.entries(options.sort);
            out.sort((a, b) => {
              for (const [field, dir] of sort) {
                const c = compareBson(a[field], b[field]);
                if (c !== 0) return c * dir;
              }
              return 0;
            });
          }
          if (options.limit) out = out.slice(0, options.limit);
          return out.map((d) => structuredClone(d));
        },
      }),
      bulkWrite: async (ops: AnyBulkWriteOperation<Document>[]) => {
        if (this.crashBefore !== null && this.crashBefore-- === 0) this.dead = true;
        this.alive();
        this.bulkWrites.push(name);
        // An ordered bulk write stops at its first write error; the driver throws MongoBulkWriteError
        // with that error's code and message, and the error itself in `writeErrors` (mongodb 6/7).
        for (const [index, op] of ops.entries()) {
          try {
            apply(docs, op, uniques(), name);
          } catch (error) {
            if (!(error instanceof MongoServerError)) throw error;
            const writeError = { index, code: error.code, errmsg: error.message };
            throw new MongoBulkWriteError({ message: error.message, code: error.code, writeErrors: [writeError] } as never, { insertedCount: 0 } as never);
          }
        }
      },
      // Compare-and-set (MongoReadStore.swap): one document, so atomic here as on a server.
      insertOne: async (doc: Stored) => {
        this.alive();
        if (docs.has(doc._id)) throw new MongoServerError({ code: 11000, errmsg: `E11000 duplicate key error collection: billing.${name} index: _id_ dup key: ${JSON.stringify(doc._id)}` });
        docs.set(doc._id, structuredClone(doc));
        return { acknowledged: true, insertedId: doc._id };
      },
      replaceOne: async (filter: Document, replacement: Document) => {
        this.alive();
        const found = [...docs.values()].find((d) => matches(d, filter));
        if (!found) return { matchedCount: 0, modifiedCount: 0 };
        docs.set(found._id, { ...structuredClone(replacement), _id: found._id });
        return { matchedCount: 1, modifiedCount: 1 };
      },
      deleteMany: async () => docs.clear(),
      deleteOne: async (filter: Document) => docs.delete(filter._id),
    };
  }
}

/** A MongoReadStore whose `Db` is `db`: a standalone server (no transactions), so the order of its bulk writes is all that protects a crash. */
export function mongoReadStoreOn(db: MongoStandIn): MongoReadStore {
  const store = new MongoReadStore('mongodb://stand-in.invalid/billing');
  Object.assign(store, { db, transactions: Promise.resolve(false) });
  return store;
}

/** Executes the operation shapes the adapter sends, checking the unique indexes. */
function apply(docs: Map<string, Stored>, op: AnyBulkWriteOperation<Document>, uniques: UniqueIndex[], collection: string): void {
  const put = (id: string, doc: Stored) => {
    for (const u of uniques) {
      if (u.partial && !matches(doc, u.partial)) continue;
      const key = JSON.stringify(u.fields.map((f) => doc[f] ?? null));
      for (const other of docs.values()) {
        if (other._id === id || (u.partial && !matches(other, u.partial))) continue;
        if (JSON.stringify(u.fields.map((f) => other[f] ?? null)) === key) {
          // The server's write error for a unique index (code 11000, "E11000 duplicate key error …").
          throw new MongoServerError({ code: 11000, errmsg: `E11000 duplicate key error collection: billing.${collection} index: ${u.name} dup key: ${key}` });
        }
      }
    }
    docs.set(id, doc);
  };
  if ('replaceOne' in op) {
    const id = op.replaceOne.filter._id as unknown as string;
    put(id, { ...structuredClone(op.replaceOne.replacement), _id: id });
  } else if ('deleteOne' in op) docs.delete(op.deleteOne.filter._id as unknown as string);
  else if ('updateOne' in op) {
    const id = op.updateOne.filter._id as unknown as string;
    const current = docs.get(id) ?? { _id: id };
    const update = op.updateOne.update as Document;
    if (Array.isArray(update)) {
      const cond = update[0].$replaceWith.$cond;
      const [field, fallback] = cond.if.$lt[0].$ifNull as [string, string];
      const held = (current[field.slice(1)] as string | undefined) ?? fallback;
      if (held < cond.if.$lt[1]) put(id, structuredClone(cond.then.$literal));
      else docs.set(id, current);
    } else {
      const [[key, value]] = Object.entries(update.$max as Record<string, string>);
      if (!(key in current) || (current[key] as string) < value) docs.set(id, { ...current, [key]: value });
      else docs.set(id, current);
    }
  } else throw new Error(`unexpected op ${JSON.stringify(op)}`);
}

const TYPE_ORDER = (v: unknown): number => {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  if (Array.isArray(v)) return 4;
  if (typeof v === 'object') return 3;
  if (typeof v === 'boolean') return 5;
  return 6;
};

/** MongoDB's sort order across types, then within a type. */
export function compareBson(a: unknown, b: unknown): number {
  const ta = TYPE_ORDER(a);
  const tb = TYPE_ORDER(b);
  if (ta !== tb) return ta - tb;
  if (ta === 0) return 0;
  if (ta === 1 || ta === 2) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ta === 5) return Number(a) - Number(b);
  const ja = JSON.stringify(a);
  const jb = JSON.stringify(b);
  return ja < jb ? -1 : ja > jb ? 1 : 0;
}

function bsonType(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return typeof v;
}

function equal(value: unknown, wanted: unknown): boolean {
  if (wanted === null) return value === null || value === undefined;
  if (Array.isArray(value) && !Array.isArray(wanted)) return value.some((v) => equal(v, wanted));
  return JSON.stringify(value) === JSON.stringify(wanted);
}

/** Comparison with type bracketing: only values of the same type compare; null compares only with null/missing. */
function compareOp(value: unknown, op: string, wanted: unknown): boolean {
  if (wanted === null) return (op === '$gte' || op === '$lte') && (value === null || value === undefined);
  if (value === undefined || value === null || TYPE_ORDER(value) !== TYPE_ORDER(wanted)) return false;
  const c = compareBson(value, wanted);
  return op === '$gt' ? c > 0 : op === '$gte' ? c >= 0 : op === '$lt' ? c < 0 : c <= 0;
}

function matchesCondition(value: unknown, condition: unknown): boolean {
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition) || !Object.keys(condition).some((k) => k.startsWith('$'))) {
    return equal(value, condition);
  }
  for (const [op, arg] of Object.entries(condition as Document)) {
    switch (op) {
      case '$eq':
        if (!equal(value, arg)) return false;
        break;
      case '$ne':
        if (equal(value, arg)) return false;
        break;
      case '$in':
        if (!(arg as unknown[]).some((a) => equal(value, a))) return false;
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (!compareOp(value, op, arg)) return false;
        break;
      case '$exists':
        if ((value !== undefined) !== arg) return false;
        break;
      case '$type': {
        const types = Array.isArray(arg) ? arg : [arg];
        if (!types.includes(bsonType(value))) return false;
        break;
      }
      case '$not':
        if (matchesCondition(value, arg)) return false;
        break;
      default:
        throw new Error(`stand-in: unsupported operator ${op}`);
    }
  }
  return true;
}

export function matches(doc: Document, filter: Document): boolean {
  for (const [key, condition] of Object.entries(filter)) {
    if (key === '$and') {
      if (!(condition as Document[]).every((f) => matches(doc, f))) return false;
    } else if (key === '$or') {
      if (!(condition as Document[]).some((f) => matches(doc, f))) return false;
    } else if (key.startsWith('$')) {
      throw new Error(`stand-in: unsupported operator ${key}`);
    } else if (!matchesCondition(doc[key], condition)) return false;
  }
  return true;
}

export { TOMBSTONE };
