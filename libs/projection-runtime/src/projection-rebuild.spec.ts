import { jest } from '@jest/globals';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import type { Projection } from './projection.js';
import { ProjectionEngine } from './projection-engine.js';

/**
 * A rebuild on the embedded store loads the emptied collections in bulk (ProjectionEngine.rebuild →
 * beginBulkLoad / endBulkLoad): inline, without their non-unique indexes, built once at the end; with
 * a writer thread, keeping them (the thread maintains them while the next batch is projected).
 */

type ItemDoc = { id: string; owner: string; rank: number; code: string } & Record<string, unknown>;

/** One document per stream (indexed by owner+rank, unique code) and one derived entry per event (indexed by owner+seq). */
function items(name: string, code: (streamId: string) => string = (s) => s): Projection<ItemDoc> {
  return {
    name,
    collection: name,
    collections: [
      { name, indexes: [{ fields: ['owner', 'rank'] }, { fields: ['code'], unique: true }] },
      { name: `${name}_log`, indexes: [{ fields: ['owner', 'seq'] }] },
    ],
    documentIds: (e) => (e.type === 'put' ? [e.streamId] : []),
    project: (doc, e, id) => ({ id, owner: String(e.data.owner), rank: (doc?.rank ?? 0) + 1, code: code(id) }),
    derive: (e) => [{ collection: `${name}_log`, id: e.id, doc: { id: e.id, owner: String(e.data.owner), seq: e.position } }],
  };
}

/** The stores a test opened, closed after it (their writer threads and connections with them). */
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});
function open<T extends { close(): Promise<void> }>(store: T): T {
  opened.push(store);
  return store;
}

const put = (owner: string) => ({ id: randomUUID(), type: 'put', data: { owner }, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });
const quiet = { log: () => undefined };

/**
 * Thirty events and a read store on a file; by default one that drops its non-unique indexes for a
 * bulk load (the inline default), `{}` for a file's own default (keep them).
 */
async function setup(options: { bulkLoadIndexes?: 'drop' | 'keep' } = { bulkLoadIndexes: 'drop' }) {
  const dir = mkdtempSync(join(tmpdir(), 'rebuild-'));
  const file = join(dir, 'read.sqlite');
  const events = open(new SqliteEventStore(join(dir, 'events.sqlite')));
  for (let i = 0; i < 30; i++) await events.append(`s-${i % 7}`, [put(`o${i % 3}`)], 'any');
  return { events, file, store: open(new SqliteReadStore(file, options)) };
}

/** Index names of the read store's tables (created by us, not SQLite's own). */
function indexes(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

/** Every row of every read-model table, columns included. */
function rows(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    return JSON.stringify(tables.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY id`).all()]));
  } finally {
    db.close();
  }
}

/**
 * At each commit: the indexes that exist, and the load's tuning of the connection that commits (the
 * writer thread's, files default to it); `before`: that tuning now.
 */
async function watchCommits(store: SqliteReadStore, file: string) {
  const during: string[][] = [];
  const tuning: unknown[][] = [];
  const commit = store.commit.bind(store);
  jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
    during.push(indexes(file));
    tuning.push([await store.writerPragma('cache_size'), await store.writerPragma('wal_autocheckpoint')]);
    return commit(writes, checkpoint);
  });
  const before = [await store.writerPragma('cache_size'), await store.writerPragma('wal_autocheckpoint')];
  return { during, tuning, before };
}

const ALL_INDEXES = [
  'rm_one__x__code',
  'rm_one__x__owner__rank__id',
  'rm_one_log__x__owner__seq__id',
  'rm_two__x__code',
  'rm_two__x__owner__rank__id',
  'rm_two_log__x__owner__seq__id',
];

describe('projection rebuild on the embedded store (bulk load)', () => {
  test('loads without the non-unique indexes, builds them at the end, and ends with the same rows (columns included) as the live run', async () => {
    const { events, file, store } = await setup();
    const engine = new ProjectionEngine([items('one'), items('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    expect(indexes(file)).toEqual(ALL_INDEXES);
    const live = rows(file);

    const { during, tuning, before } = await watchCommits(store, file);
    expect(await engine.rebuild()).toEqual([
      { name: 'one', events: 30 },
      { name: 'two', events: 30 },
    ]);
    // The batch was written with only the unique indexes (enforced row by row); every index is back.
    expect(during.some((names) => names.join() === 'rm_one__x__code,rm_two__x__code')).toBe(true);
    expect(tuning).toContainEqual([-65536, 65536]);
    expect([await store.writerPragma('cache_size'), await store.writerPragma('wal_autocheckpoint')]).toEqual(before);
    expect(indexes(file)).toEqual(ALL_INDEXES);
    expect(rows(file)).toBe(live);
    // The rebuilt indexes serve the queries.
    const db = new Database(file, { readonly: true });
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT doc FROM rm_one_log WHERE x_owner = 'o1' ORDER BY x_seq, id").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain('rm_one_log__x__owner__seq__id');
    db.close();
    expect((await store.find<{ id: string }>('one', { where: { owner: 'o1' }, orderBy: { field: 'rank', direction: 'desc' }, limit: 10 })).length).toBeGreaterThan(0);
  });

  test('with a writer thread (the default for files) the load keeps every index, maintained by the thread, with the same tuning, and ends with the same rows', async () => {
    const { events, file, store } = await setup({});
    const engine = new ProjectionEngine([items('one'), items('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    const live = rows(file);
    const { during, tuning, before } = await watchCommits(store, file);
    await engine.rebuild();
    expect(during.length).toBeGreaterThan(0);
    for (const names of during) expect(names).toEqual(ALL_INDEXES);
    expect(tuning).toContainEqual([-65536, 65536]);
    expect([await store.writerPragma('cache_size'), await store.writerPragma('wal_autocheckpoint')]).toEqual(before);
    expect(rows(file)).toBe(live);
    await store.close();
    await events.close();
  });

  test('a rebuild in many pipelined batches (writer thread) ends with the same rows as a live run one event at a time, all or one projection', async () => {
    const { events, file, store } = await setup();
    const live = new ProjectionEngine([items('one'), items('two')], events, store, { ...quiet, batchSize: 1 });
    await live.init();
    await live.catchUp();
    const expected = rows(file);
    // Batches of 4: each commit (in the writer thread) overlaps the next batch's projection.
    let inFlight = 0;
    let overlapped = false;
    const commit = store.commit.bind(store);
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      inFlight += 1;
      try {
        await new Promise((r) => setTimeout(r, 5));
        return await commit(writes, checkpoint);
      } finally {
        inFlight -= 1;
      }
    });
    const readAll = events.readAll.bind(events);
    jest.spyOn(events, 'readAll').mockImplementation(async (options) => {
      if (inFlight > 0) overlapped = true;
      return readAll(options);
    });
    const rebuilding = new ProjectionEngine([items('one'), items('two')], events, store, { ...quiet, batchSize: 4 });
    await rebuilding.init();
    expect(await rebuilding.rebuild()).toEqual([
      { name: 'one', events: 30 },
      { name: 'two', events: 30 },
    ]);
    expect(overlapped).toBe(true);
    expect(rows(file)).toBe(expected);
    await rebuilding.rebuild('two');
    expect(rows(file)).toBe(expected);
  });

  test("a rebuild of one projection leaves the other's indexes in place all along", async () => {
    const { events, file, store } = await setup();
    const engine = new ProjectionEngine([items('one'), items('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    const live = rows(file);
    const during: string[][] = [];
    const commit = store.commit.bind(store);
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      during.push(indexes(file));
      return commit(writes, checkpoint);
    });
    await engine.rebuild('two');
    const loading = during.find((names) => !names.includes('rm_two__x__owner__rank__id'));
    expect(loading).toEqual(['rm_one__x__code', 'rm_one__x__owner__rank__id', 'rm_one_log__x__owner__seq__id', 'rm_two__x__code']);
    expect(indexes(file)).toEqual(ALL_INDEXES);
    expect(rows(file)).toBe(live);
  });

  test('a duplicate of a unique key during a rebuild is refused as outside one (unique indexes stay during the load): that projection is parked with the error, the others and every index are whole', async () => {
    const { events, file, store } = await setup();
    const engine = new ProjectionEngine([items('one'), items('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    // A new version of `two` that gives every document the same code: its rebuild cannot hold the unique index.
    const broken = new ProjectionEngine([items('one'), items('two', () => 'same')], events, store, { retries: 1, backoffMs: 1, log: () => undefined });
    await broken.init();
    await broken.rebuild();
    const status = await broken.status();
    expect(status.find((s) => s.name === 'one')).toMatchObject({ caught_up: true, parked: null });
    const parked = status.find((s) => s.name === 'two')!.parked;
    expect(parked?.error).toMatch(/^two: a document with the same unique key exists/);
    expect(parked?.stream_id).toMatch(/^s-/);
    expect(indexes(file)).toEqual(ALL_INDEXES);
    // Nothing of the refused batch landed (the store refuses a projection's batch as a whole, blaming its first event).
    expect(await store.find('two', { where: { code: 'same' }, orderBy: { field: 'id', direction: 'asc' }, limit: 10 })).toEqual([]);
    expect(parked?.position).toBe((await events.readAll({ after: null, maxCount: 1 }))[0].position);
  });

  test('a rebuild whose pass fails reports that error and builds the indexes again', async () => {
    const { events, file, store } = await setup();
    const engine = new ProjectionEngine([items('one'), items('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    jest.spyOn(events, 'readAll').mockRejectedValue(new Error('event store gone'));
    await expect(engine.rebuild()).rejects.toThrow('event store gone');
    expect(indexes(file)).toEqual(ALL_INDEXES);
  });

  test('a rebuild that stops half-way (no endBulkLoad) gets its indexes back at the next start', async () => {
    const { events, file, store } = await setup();
    const engine = new ProjectionEngine([items('one'), items('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    await store.beginBulkLoad(engine.projections.flatMap((p) => p.collections));
    expect(indexes(file)).toEqual(['rm_one__x__code', 'rm_two__x__code']);
    await store.close();
    const restarted = new ProjectionEngine([items('one'), items('two')], events, open(new SqliteReadStore(file)), quiet);
    await restarted.init();
    expect(indexes(file)).toEqual(ALL_INDEXES);
  });
});

describe('a collection written by several projections (the feed)', () => {
  /** Like `items`, but each projection's derived entries go to one collection both write. */
  function sharing(name: string): Projection<ItemDoc> {
    const p = items(name);
    return {
      ...p,
      collections: [p.collections[0], { name: 'shared_log', indexes: [{ fields: ['owner', 'seq'] }] }],
      documentIds: (e) => (e.type === 'put' && e.data.to === name ? [e.streamId] : []),
      derive: (e) => [{ collection: 'shared_log', id: e.id, doc: { id: e.id, owner: String(e.data.owner), by: name, seq: e.position } }],
    };
  }

  test('a rebuild of one writer keeps the others\' entries and the indexes; a rebuild of all empties and refills it; both end as the live run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rebuild-shared-'));
    const file = join(dir, 'read.sqlite');
    const events = open(new SqliteEventStore(join(dir, 'events.sqlite')));
    for (let i = 0; i < 20; i++) await events.append(`s-${i}`, [{ ...put(`o${i % 3}`), data: { owner: `o${i % 3}`, to: i % 2 ? 'one' : 'two' } }], 'any');
    const store = open(new SqliteReadStore(file));
    const engine = new ProjectionEngine([sharing('one'), sharing('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    const live = rows(file);
    expect((await store.find('shared_log', { orderBy: { field: 'seq', direction: 'asc' }, limit: 100 })).length).toBe(20);

    const during: string[][] = [];
    const commit = store.commit.bind(store);
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      during.push(indexes(file));
      return commit(writes, checkpoint);
    });
    await engine.rebuild('two');
    // `one`'s entries were never removed, and the shared collection kept its index all along.
    expect(during.every((names) => names.includes('rm_shared_log__x__owner__seq__id'))).toBe(true);
    expect(rows(file)).toBe(live);
    await engine.rebuild();
    expect(rows(file)).toBe(live);
  });

  test('the former event_feed projection: its copies of the objects and its checkpoint are dropped at start, once', async () => {
    const { events, store } = await setup();
    await store.ensureCollections([{ name: 'event_objects', indexes: [] }]);
    await store.commit([{ collection: 'event_objects', id: 'prod_1', doc: { id: 'prod_1' } }], { name: 'event_feed', position: '0000000001' });
    const engine = new ProjectionEngine([items('one')], events, store, quiet);
    await engine.init();
    expect(await store.getCheckpoint('event_feed')).toBeNull();
    expect(await store.get('event_objects', 'prod_1')).toBeNull();
  });
});
