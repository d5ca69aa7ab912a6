import type { AnyBulkWriteOperation, Document } from 'mongodb';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../event-store/src/sqlite-event-store.js';
import type { Projection } from '../../../projections/runtime/projection.js';
import { ProjectionPipeline } from '../../../projections/runtime/projection-pipeline.js';
import { MongoReadStore, planCommit, TOMBSTONE } from './mongo-read-store.js';

/**
 * No MongoDB server runs here: the adapter's write order and conditions are checked on what it would
 * send (`planCommit`), and end to end against a small in-memory stand-in for the driver's `Db` that
 * executes exactly those operation shapes (and can "crash" before any bulk write).
 */
type Stored = Document & { _id: string };

class FakeDb {
  readonly collections = new Map<string, Map<string, Stored>>();
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

  async createCollection(): Promise<void> {}

  collection(name: string) {
    const docs = this.docs(name);
    const visible = (d: Stored | undefined, filter: Document) => d !== undefined && !(filter[TOMBSTONE]?.$exists === false && TOMBSTONE in d);
    return {
      createIndex: async () => 'ok',
      findOne: async (filter: Document) => {
        this.alive();
        const d = docs.get(filter._id);
        return visible(d, filter) ? structuredClone(d) : null;
      },
      find: (filter: Document) => ({
        toArray: async () => (filter._id.$in as string[]).map((id) => docs.get(id)).filter((d) => visible(d, filter)).map((d) => structuredClone(d)),
      }),
      bulkWrite: async (ops: AnyBulkWriteOperation<Document>[]) => {
        if (this.crashBefore !== null && this.crashBefore-- === 0) this.dead = true;
        this.alive();
        this.bulkWrites.push(name);
        for (const op of ops) apply(docs, op);
      },
      deleteMany: async () => docs.clear(),
      deleteOne: async (filter: Document) => docs.delete(filter._id),
    };
  }
}

/** Executes the operation shapes the adapter sends. */
function apply(docs: Map<string, Stored>, op: AnyBulkWriteOperation<Document>): void {
  if ('replaceOne' in op) docs.set(op.replaceOne.filter._id as unknown as string, { ...op.replaceOne.replacement, _id: op.replaceOne.filter._id as unknown as string });
  else if ('deleteOne' in op) docs.delete(op.deleteOne.filter._id as unknown as string);
  else if ('updateOne' in op) {
    const id = op.updateOne.filter._id as unknown as string;
    const current = docs.get(id) ?? { _id: id };
    const update = op.updateOne.update as Document;
    if (Array.isArray(update)) {
      const cond = update[0].$replaceWith.$cond;
      const [field, fallback] = cond.if.$lt[0].$ifNull as [string, string];
      const held = (current[field.slice(1)] as string | undefined) ?? fallback;
      if (held < cond.if.$lt[1]) docs.set(id, structuredClone(cond.then.$literal));
      else docs.set(id, current);
    } else {
      const [[key, value]] = Object.entries(update.$max as Record<string, string>);
      if (!(key in current) || (current[key] as string) < value) docs.set(id, { ...current, [key]: value });
    }
  } else throw new Error(`unexpected op ${JSON.stringify(op)}`);
}

function storeOn(db: FakeDb): MongoReadStore {
  const store = new MongoReadStore('mongodb://stand-in.invalid/billing');
  // A standalone server: no transactions, so the order of the bulk writes is all that protects a crash.
  Object.assign(store, { db, transactions: Promise.resolve(false) });
  return store;
}

/** A resource projection with a derived feed entry per event (as the event feed has). */
const notes: Projection = {
  name: 'notes',
  collection: 'notes',
  collections: [
    { name: 'notes', indexes: [] },
    { name: 'note_events', indexes: [] },
  ],
  documentIds: (e) => (e.streamId.startsWith('note-') ? [e.streamId] : []),
  project: (doc, e, id) => (e.type === 'note.deleted' ? null : { id, text: e.data.text, edits: ((doc?.edits as number) ?? -1) + 1 }),
  derive: (e) => [{ collection: 'note_events', id: e.id, doc: { id: e.id, type: e.type } }],
};

const event = (type: string, data: Record<string, unknown> = {}) => ({ id: randomUUID(), type, data, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });

describe('MongoDB read store: what a commit sends', () => {
  test('derived entries first, then documents conditional on their position, then the checkpoints', () => {
    const { steps } = planCommit(
      [
        { collection: 'notes', id: 'n1', doc: { id: 'n1', _position: 'p2' }, position: 'p2' },
        { collection: 'note_events', id: 'e1', doc: { id: 'e1' } },
        { collection: 'notes', id: 'n2', doc: null, position: 'p3' },
      ],
      [{ name: 'notes', position: 'p3' }],
    );
    expect(steps.map((s) => s.collection)).toEqual(['rm_note_events', 'rm_notes', 'checkpoints']);
    expect(steps[0].ops).toEqual([{ replaceOne: { filter: { _id: 'e1' }, replacement: { id: 'e1' }, upsert: true } }]);
    const conditional = (then: Document, position: string) => ({
      updateOne: {
        filter: { _id: then._id },
        update: [{ $replaceWith: { $cond: { if: { $lt: [{ $ifNull: ['$_position', ''] }, position] }, then: { $literal: then }, else: '$$ROOT' } } }],
        upsert: true,
      },
    });
    expect(steps[1].ops).toEqual([
      conditional({ id: 'n1', _position: 'p2', _id: 'n1' }, 'p2'),
      conditional({ _id: 'n2', _position: 'p3', [TOMBSTONE]: true }, 'p3'),
    ]);
    expect(steps[2].ops).toEqual([{ updateOne: { filter: { _id: 'notes' }, update: { $max: { position: 'p3' } }, upsert: true } }]);
  });

  test('a crash between any two writes of a commit loses nothing once the batch is delivered again', async () => {
    for (let crashAt = 0; crashAt < 3; crashAt++) {
      const events = new SqliteEventStore(':memory:');
      await events.append('note-a', [event('note.created', { text: 'a' }), event('note.updated', { text: 'b' })], 'no_stream');
      const db = new FakeDb();
      const store = storeOn(db);
      const crashed = new ProjectionPipeline([notes], events, store, { log: () => undefined });
      await crashed.init();
      db.crashBefore = crashAt;
      await expect(crashed.catchUp()).rejects.toThrow('crash');
      db.dead = false;
      db.crashBefore = null;
      // The process restarts and reads from its committed checkpoint.
      const restarted = new ProjectionPipeline([notes], events, store, { log: () => undefined });
      await restarted.init();
      await restarted.catchUp();
      expect(await store.get('notes', 'note-a')).toMatchObject({ text: 'b', edits: 1 });
      expect(db.collections.get('rm_note_events')?.size).toBe(2);
      expect(await store.getCheckpoint('notes')).toBe(await events.headPosition());
    }
  });

  test('a slower worker never overwrites a newer document nor brings back a deleted one', async () => {
    const events = new SqliteEventStore(':memory:');
    await events.append('note-a', [event('note.created', { text: 'a' })], 'no_stream');
    await events.append('note-b', [event('note.created', { text: 'x' })], 'no_stream');
    await events.append('note-a', [event('note.updated', { text: 'b' })], 0);
    await events.append('note-b', [event('note.deleted')], 0);
    const all = await events.readAll({ maxCount: 10 });
    const db = new FakeDb();
    const store = storeOn(db);
    const fast = new ProjectionPipeline([notes], events, store);
    await fast.init();
    await fast.catchUp();
    // The slow worker read its batch (the first two events) before the fast one committed.
    const slow = new ProjectionPipeline([notes], events, store);
    await slow.init();
    await slow.apply(all.slice(0, 2).map((e) => ({ ...e })), undefined);
    expect(await store.get('notes', 'note-a')).toMatchObject({ text: 'b', edits: 1 });
    expect(await store.get('notes', 'note-b')).toBeNull();
    expect(db.collections.get('rm_notes')?.get('note-b')).toMatchObject({ [TOMBSTONE]: true, _position: all[3].position });
    expect(await store.getCheckpoint('notes')).toBe(all[3].position);
  });
});
