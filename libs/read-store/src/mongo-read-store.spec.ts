import type { Document } from 'mongodb';
import { MongoStandIn, mongoReadStoreOn } from '#test/support/mongo-stand-in.js';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import type { Projection } from '#projection-runtime/projection.js';
import { ProjectionPipeline } from '#projection-runtime/projection-pipeline.js';
import { planCommit, TOMBSTONE } from './mongo-read-store.js';

/**
 * No MongoDB server runs here: the adapter's write order and conditions are checked on what it would
 * send (`planCommit`), and end to end against the in-memory stand-in for the driver's `Db`
 * (test/support/mongo-stand-in.ts), which executes exactly those operation shapes (and can "crash"
 * before any bulk write).
 */
const FakeDb = MongoStandIn;
type FakeDb = MongoStandIn;
const storeOn = mongoReadStoreOn;

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
