import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { FencedError, LEASES_COLLECTION } from '#read-store/read-store.port.js';
import type { Projection } from './projection.js';
import { ProjectionEngine, ReadModelParkedError } from './projection-engine.js';
import { PROJECTION_STATUS, ProjectionParkedError, ProjectionPipeline } from './projection-pipeline.js';

type CounterDoc = { id: string; count: number } & Record<string, unknown>;

/** Counts `tick` events per stream in its own collection; derives one log entry per event. */
function counters(name: string, poison?: (data: Record<string, unknown>) => boolean): Projection<CounterDoc> {
  return {
    name,
    collection: name,
    collections: [
      { name, indexes: [] },
      { name: `${name}_ticks`, indexes: [] },
    ],
    documentIds: (e) => (e.type === 'tick' ? [e.streamId] : []),
    project: (doc, e, id) => {
      if (poison?.(e.data)) throw new Error(`cannot project ${JSON.stringify(e.data)}`);
      return { id, count: (doc?.count ?? 0) + 1 };
    },
    derive: (e) => [{ collection: `${name}_ticks`, id: e.id, doc: { id: e.id } }],
  };
}

const tick = (data: Record<string, unknown> = {}) => ({ id: randomUUID(), type: 'tick', data, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });
const quiet = { log: (m: string, e?: unknown) => (process.env.DEBUG_PIPELINE ? console.log(m, e) : undefined) };

async function setup() {
  const events = new SqliteEventStore(':memory:');
  const store = new SqliteReadStore(':memory:');
  await events.append('c-a', [tick(), tick()], 'no_stream');
  await events.append('c-b', [tick()], 'no_stream');
  await events.append('other-x', [{ ...tick(), type: 'other' }], 'no_stream');
  await events.append('c-a', [tick()], 1);
  return { events, store };
}

describe('projection pipeline', () => {
  test('a read-your-writes wait begun on this process\'s pipeline goes on against the stored checkpoints when the pipeline stops (its lease lost): the new holder\'s commit releases it', async () => {
    const { events, store } = await setup();
    await store.ensureCollections([{ name: LEASES_COLLECTION, indexes: [] }]);
    await store.swap(LEASES_COLLECTION, 'projections', null, { id: 'projections', kind: 'unit', holder: 'wrk_a', epoch: 1 });
    const engine = new ProjectionEngine([counters('one')], events, store, quiet);
    await engine.init();
    await engine.follow({ unit: 'projections', holder: 'wrk_a', epoch: 1 });
    // Another worker takes the projections; this one's pipeline is fenced off at its next commit.
    await store.swap(LEASES_COLLECTION, 'projections', { holder: 'wrk_a', epoch: 1 }, { id: 'projections', kind: 'unit', holder: 'wrk_b', epoch: 2 });
    const { position } = await events.append('c-b', [tick()], 0);
    const began = Date.now();
    const waiting = engine.waitFor(position, 5000);
    await new Promise((r) => setTimeout(r, 100));
    await engine.stop(); // what the lease manager does once it sees the lease lost
    const other = new ProjectionPipeline([counters('one')], events, store, quiet);
    other.fence = { unit: 'projections', holder: 'wrk_b', epoch: 2 };
    await other.init();
    await other.catchUp();
    expect(await waiting).toBe(true);
    expect(Date.now() - began).toBeLessThan(2000);
  });

  test('fenced by a lease: its commits land while the lease is held at its epoch; once another epoch holds it a batch is refused whole and the live loop stops', async () => {
    const { events, store } = await setup();
    await store.ensureCollections([{ name: LEASES_COLLECTION, indexes: [] }]);
    await store.swap(LEASES_COLLECTION, 'projections', null, { id: 'projections', kind: 'unit', holder: 'wrk_a', epoch: 1 });
    const held = new ProjectionPipeline([counters('one')], events, store, quiet);
    held.fence = { unit: 'projections', holder: 'wrk_a', epoch: 1 };
    await held.init();
    expect(await held.catchUp()).toBe(5);
    const checkpoint = await store.getCheckpoint('one');
    // Another worker takes the projections (epoch 2); the former holder, resumed, projects new events.
    await store.swap(LEASES_COLLECTION, 'projections', { holder: 'wrk_a', epoch: 1 }, { id: 'projections', kind: 'unit', holder: 'wrk_b', epoch: 2 });
    await events.append('c-b', [tick()], 0);
    await expect(held.catchUp()).rejects.toBeInstanceOf(FencedError);
    expect(await store.getCheckpoint('one')).toBe(checkpoint);
    expect(await store.get('one', 'c-b')).toMatchObject({ count: 1 });
    expect(await store.get(PROJECTION_STATUS, 'one')).toBeNull(); // refused, not a failure of the projection: never parked
    // Live: the loop stops at the refused commit.
    held.start();
    await events.append('c-b', [tick()], 1);
    for (let i = 0; i < 100 && held.watching(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(held.watching()).toBe(false);
    expect(await store.getCheckpoint('one')).toBe(checkpoint);
    // The new holder's pipeline carries on from the committed checkpoint.
    const next = new ProjectionPipeline([counters('one')], events, store, quiet);
    next.fence = { unit: 'projections', holder: 'wrk_b', epoch: 2 };
    await next.init();
    expect(await next.catchUp()).toBe(2);
    expect(await store.get('one', 'c-b')).toMatchObject({ count: 3 });
    await held.stop();
  });

  test('feeds every projection from one read and commits them and their checkpoints together', async () => {
    const { events, store } = await setup();
    const readAll = jest.spyOn(events, 'readAll');
    const commit = jest.spyOn(store, 'commit');
    const pipeline = new ProjectionPipeline([counters('one'), counters('two'), counters('three')], events, store, quiet);
    await pipeline.init();
    expect(await pipeline.catchUp()).toBe(5);
    // One read that found the five events, one that found none; one commit for the three projections.
    expect(readAll).toHaveBeenCalledTimes(2);
    expect(commit).toHaveBeenCalledTimes(1);
    const [writes, checkpoints] = commit.mock.calls[0];
    expect(new Set(writes.map((w) => w.collection))).toEqual(new Set(['one', 'one_ticks', 'two', 'two_ticks', 'three', 'three_ticks']));
    const head = await events.headPosition();
    expect(checkpoints).toEqual(['one', 'two', 'three'].map((name) => ({ name, position: head })));
    for (const name of ['one', 'two', 'three']) {
      expect(await store.get(name, 'c-a')).toMatchObject({ count: 3 });
      expect(await store.get(name, 'c-b')).toMatchObject({ count: 1 });
      expect(await store.getCheckpoint(name)).toBe(head);
    }
  });

  test('writes a document once per batch however many of its events the batch holds (the last one\'s _position), with the same result as one event per batch', async () => {
    const events = new SqliteEventStore(':memory:');
    await events.append('c-a', Array.from({ length: 7 }, (_, i) => tick({ n: i })), 'no_stream');
    await events.append('c-b', [tick()], 'no_stream');
    await events.append('c-a', [tick(), tick()], 6);
    const all = await events.readAll({ maxCount: 100 });

    const batched = new SqliteReadStore(':memory:');
    const commit = jest.spyOn(batched, 'commit');
    const pipeline = new ProjectionPipeline([counters('one'), counters('two')], events, batched, quiet);
    await pipeline.init();
    expect(await pipeline.catchUp()).toBe(10);
    expect(commit).toHaveBeenCalledTimes(1);
    const [writes] = commit.mock.calls[0];
    for (const name of ['one', 'two']) {
      const own = writes.filter((w) => w.collection === name);
      // Nine events on c-a, one on c-b: two document writes, each at its document's last event.
      expect(own.map((w) => w.id).sort()).toEqual(['c-a', 'c-b']);
      expect(own.find((w) => w.id === 'c-a')).toMatchObject({ position: all[9].position, doc: { count: 9, _position: all[9].position } });
      expect(writes.filter((w) => w.collection === `${name}_ticks`)).toHaveLength(10);
    }

    const single = new SqliteReadStore(':memory:');
    const oneByOne = new ProjectionPipeline([counters('one'), counters('two')], events, single, { ...quiet, batchSize: 1 });
    await oneByOne.init();
    expect(await oneByOne.catchUp()).toBe(10);
    for (const name of ['one', 'two', 'one_ticks', 'two_ticks']) {
      const query = { orderBy: { field: 'id', direction: 'asc' as const }, limit: 100 };
      expect(await batched.find(name, query)).toEqual(await single.find(name, query));
      expect(await batched.getCheckpoint(name.replace('_ticks', ''))).toBe(await single.getCheckpoint(name.replace('_ticks', '')));
    }
  });

  test('is idempotent when events are delivered again', async () => {
    const { events, store } = await setup();
    const pipeline = new ProjectionPipeline([counters('counters')], events, store, quiet);
    await pipeline.init();
    await pipeline.catchUp();
    const all = await events.readAll({ maxCount: 100 });
    // A second worker that has not seen the checkpoint move: it delivers everything again.
    const late = new ProjectionPipeline([counters('counters')], events, store, quiet);
    await late.apply(all);
    await late.apply(all.slice(1, 3));
    expect(await store.get('counters', 'c-a')).toMatchObject({ count: 3 });
    expect(await store.find('counters_ticks', { orderBy: { field: 'id', direction: 'asc' }, limit: 100 })).toHaveLength(4);
  });

  test('resumes from the committed checkpoints after a restart, each projection from its own', async () => {
    const { events, store } = await setup();
    const first = new ProjectionPipeline([counters('one')], events, store, quiet);
    await first.init();
    await first.apply(await events.readAll({ maxCount: 2 }));
    // Restarted with a second projection that has never run: one pass catches both up.
    const second = new ProjectionPipeline([counters('one'), counters('two')], events, store, quiet);
    await second.init();
    expect(await second.catchUp()).toBe(5);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 3 });
    expect(await store.get('two', 'c-a')).toMatchObject({ count: 3 });
  });

  test('a poisoned event parks its projection after the retries; the others go on, waiters get an error at once', async () => {
    const { events, store } = await setup();
    const bad = tick({ poison: true });
    await events.append('c-b', [bad], 0);
    const { position: after } = await events.append('c-c', [tick()], 'no_stream');
    const logged: string[] = [];
    const engine = new ProjectionEngine([counters('good'), counters('picky', (d) => d.poison === true)], events, store, {
      retries: 2,
      backoffMs: 5,
      log: (m) => logged.push(m),
    });
    await engine.init();
    await engine.catchUp();

    // The healthy projection has everything; the picky one kept what came before the poison.
    expect(await store.get('good', 'c-b')).toMatchObject({ count: 2 });
    expect(await store.get('good', 'c-c')).toMatchObject({ count: 1 });
    expect(await store.get('picky', 'c-b')).toMatchObject({ count: 1 });
    expect(await store.get('picky', 'c-c')).toBeNull();
    const poisonPosition = (await events.readStream('c-b'))[1].position;
    expect(await store.getCheckpoint('picky')).toBe((await events.readStream('c-a'))[2].position);
    expect(logged.some((m) => m.includes('parked after 3 attempts'))).toBe(true);

    const status = await engine.status();
    expect(status.find((s) => s.name === 'good')).toMatchObject({ caught_up: true, parked: null });
    expect(status.find((s) => s.name === 'picky')).toMatchObject({
      caught_up: false,
      parked: { event_id: bad.id, event_type: 'tick', position: poisonPosition, error: expect.stringContaining('cannot project') },
    });

    // Read-your-writes: a wait that needs the parked projection fails at once, with a 503.
    engine.start();
    const started = Date.now();
    await expect(engine.waitFor(after)).rejects.toBeInstanceOf(ReadModelParkedError);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(engine.pipeline.waitFor(after)).rejects.toBeInstanceOf(ProjectionParkedError);
    // New events still reach the healthy projection.
    const { position: later } = await events.append('c-d', [tick()], 'no_stream');
    await expect(engine.pipeline.waitFor(later, 5000)).rejects.toBeInstanceOf(ProjectionParkedError);
    for (let i = 0; i < 200 && !(await store.get('good', 'c-d')); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await store.get('good', 'c-d')).toMatchObject({ count: 1 });
    await engine.stop();

    // A restarted process still knows (the reason is in the read store) and reports it without running.
    const reader = new ProjectionEngine([counters('good'), counters('picky')], events, store, quiet);
    await reader.init();
    await expect(reader.waitFor(after, 2000)).rejects.toBeInstanceOf(ReadModelParkedError);

    // Resumed with the projector fixed, it goes on from its checkpoint.
    const fixed = new ProjectionEngine([counters('good'), counters('picky')], events, store, quiet);
    await fixed.init();
    expect(await fixed.resume('picky')).toBe(true);
    expect(await store.get(PROJECTION_STATUS, 'picky')).toBeNull();
    await fixed.catchUp();
    expect(await store.get('picky', 'c-b')).toMatchObject({ count: 2 });
    expect(await store.get('picky', 'c-d')).toMatchObject({ count: 1 });
    expect((await fixed.status()).every((s) => s.caught_up && !s.parked)).toBe(true);
  });

  test('a projection whose writes the store refuses fails alone', async () => {
    const { events, store } = await setup();
    const original = store.commit.bind(store);
    // The store refuses any batch holding a document of collection `fussy`.
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      if (writes.some((w) => w.collection === 'fussy')) throw new Error('document cannot be stored');
      return original(writes, checkpoint);
    });
    const engine = new ProjectionEngine([counters('fine'), counters('fussy')], events, store, { retries: 1, backoffMs: 1, log: () => undefined });
    await engine.init();
    await engine.catchUp();
    const status = await engine.status();
    expect(status.find((s) => s.name === 'fine')).toMatchObject({ caught_up: true, parked: null });
    expect(status.find((s) => s.name === 'fussy')?.parked).toMatchObject({ error: 'document cannot be stored' });
  });

  test('follows new events live and tells waiters as soon as the batch holding their position is committed', async () => {
    const { events, store } = await setup();
    const pipeline = new ProjectionPipeline([counters('one'), counters('two')], events, store, { pollMs: 60_000, ...quiet });
    await pipeline.init();
    pipeline.start();
    const { position } = await events.append('c-b', [tick()], 0);
    expect(await pipeline.waitFor(position, 5000)).toBe(true);
    expect(await store.get('one', 'c-b')).toMatchObject({ count: 2 });
    expect(await store.get('two', 'c-b')).toMatchObject({ count: 2 });
    await pipeline.stop();
  });

  test('live: no pause to coalesce appends while a request waits for a position the batch did not hold', async () => {
    const { events, store } = await setup();
    const original = store.commit.bind(store);
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      await new Promise((r) => setTimeout(r, 30));
      return original(writes, checkpoint);
    });
    // A pause of a second after every batch smaller than a page, unless someone waits.
    const pipeline = new ProjectionPipeline([counters('one')], events, store, { pollMs: 60_000, coalesceMs: 1000, ...quiet });
    await pipeline.init();
    await pipeline.catchUp();
    pipeline.start();
    try {
      const a = await events.append('c-b', [tick()], 0);
      const first = pipeline.waitFor(a.position, 5000);
      await new Promise((r) => setTimeout(r, 10)); // a's batch is committing
      const b = await events.append('c-b', [tick()], 1);
      const started = Date.now();
      const second = pipeline.waitFor(b.position, 5000); // waiting when a's batch lands: b is read at once
      expect(await first).toBe(true);
      expect(await second).toBe(true);
      expect(Date.now() - started).toBeLessThan(600); // with the pause: over 1,000 ms
      expect(await store.get('one', 'c-b')).toMatchObject({ count: 3 });
    } finally {
      await pipeline.stop();
    }
  });

  test('live: a batch takes the documents the previous batch committed as they are; after a failed batch or init it reads them again', async () => {
    const { events, store } = await setup();
    const getMany = jest.spyOn(store, 'getMany');
    const readIds = () => getMany.mock.calls.filter(([c]) => c === 'one').flatMap(([, ids]) => ids);
    let poisoned = false;
    const pipeline = new ProjectionPipeline([counters('one', () => poisoned)], events, store, { retries: 10, backoffMs: 1, ...quiet });
    await pipeline.init();
    expect(await pipeline.step()).toBe(5); // c-a and c-b read from the store (absent)
    expect(readIds().sort()).toEqual(['c-a', 'c-b']);

    getMany.mockClear();
    await events.append('c-a', [tick()], 2);
    await events.append('c-new', [tick()], 'no_stream');
    expect(await pipeline.step()).toBe(2);
    expect(readIds()).toEqual(['c-new']); // c-a came from the previous batch
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 4 });

    // A batch that fails keeps nothing: the next one reads its documents from the store.
    getMany.mockClear();
    poisoned = true;
    await events.append('c-a', [tick()], 3);
    expect(await pipeline.step()).toBe(1);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 4 });
    poisoned = false;
    await new Promise((r) => setTimeout(r, 5));
    getMany.mockClear();
    expect(await pipeline.step()).toBe(1);
    expect(readIds()).toEqual(['c-a']);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 5 });

    // init (a restart, the end of a rebuild) drops them too; a document changed behind the pipeline's back then shows.
    await store.commit([{ collection: 'one', id: 'c-a', doc: { id: 'c-a', count: 100 } }]);
    await pipeline.init();
    getMany.mockClear();
    await events.append('c-a', [tick()], 4);
    expect(await pipeline.step()).toBe(1);
    expect(readIds()).toEqual(['c-a']);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 101 });
  });

  test('catch-up projects the next batch while the previous one commits, on top of its uncommitted documents', async () => {
    const events = new SqliteEventStore(':memory:');
    for (let i = 0; i < 6; i++) await events.append('c-a', [tick({ n: i })], i === 0 ? 'no_stream' : i - 1);
    const store = new SqliteReadStore(':memory:');
    const original = store.commit.bind(store);
    const log: string[] = [];
    // Each commit lands only after the next batch has been read (or the pass found the head).
    const readAll = events.readAll.bind(events);
    jest.spyOn(events, 'readAll').mockImplementation(async (options) => {
      const batch = await readAll(options);
      log.push(`read ${batch.length}`);
      return batch;
    });
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      log.push(`commit sent ${writes.filter((w) => w.collection === 'one').map((w) => (w.doc as CounterDoc).count).join(',')}`);
      await new Promise((r) => setTimeout(r, 20));
      await original(writes, checkpoint);
      log.push('commit landed');
    });
    const pipeline = new ProjectionPipeline([counters('one')], events, store, { ...quiet, batchSize: 2 });
    await pipeline.init();
    expect(await pipeline.catchUp()).toBe(6);
    // Batch 2 was read and projected (count 3, 4: on top of batch 1's uncommitted count 2) before batch 1 landed,
    // and its commit was sent only after batch 1's landed: at most one commit in flight.
    expect(log).toEqual(['read 2', 'commit sent 2', 'read 2', 'commit landed', 'commit sent 4', 'read 2', 'commit landed', 'commit sent 6', 'read 0', 'commit landed']);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 6 });
    expect(await store.find('one_ticks', { orderBy: { field: 'id', direction: 'asc' }, limit: 100 })).toHaveLength(6);
    expect(await store.getCheckpoint('one')).toBe(await events.headPosition());
  });

  test('catch-up: a commit that fails drops the batch projected on top of it; a restart resumes from what was committed', async () => {
    const events = new SqliteEventStore(':memory:');
    for (let i = 0; i < 6; i++) await events.append('c-a', [tick({ n: i })], i === 0 ? 'no_stream' : i - 1);
    const store = new SqliteReadStore(':memory:');
    const original = store.commit.bind(store);
    let commits = 0;
    const sent: number[] = [];
    jest.spyOn(store, 'commit').mockImplementation(async (writes, checkpoint) => {
      commits += 1;
      sent.push(writes.length);
      await new Promise((r) => setTimeout(r, 10));
      // The second batch's commit finds the disk full (the store cannot take writes: the pass stops).
      if (commits === 2) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      await original(writes, checkpoint);
    });
    const first = await events.readAll({ maxCount: 2 });
    const pipeline = new ProjectionPipeline([counters('one')], events, store, { ...quiet, batchSize: 2 });
    await pipeline.init();
    await expect(pipeline.catchUp()).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    // Batch 3 had been projected on top of batch 2 while it committed: never sent.
    expect(commits).toBe(2);
    expect(await store.getCheckpoint('one')).toBe(first[1].position);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 2, _position: first[1].position });
    expect(pipeline.checkpoints().get('one')).toBe(first[1].position);
    // Space is back: the same pipeline (or a restarted one) goes on from the committed checkpoint.
    jest.restoreAllMocks();
    const restarted = new ProjectionPipeline([counters('one')], events, store, { ...quiet, batchSize: 2 });
    await restarted.init();
    expect(await restarted.catchUp()).toBe(4);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 6 });
    expect(await store.find('one_ticks', { orderBy: { field: 'id', direction: 'asc' }, limit: 100 })).toHaveLength(6);
    expect(await pipeline.catchUp()).toBe(4);
    expect(await store.get('one', 'c-a')).toMatchObject({ count: 6 });
  });

  test('catch-up: a projection that fails in a batch settles before the next batch is projected; the others go on', async () => {
    const events = new SqliteEventStore(':memory:');
    for (let i = 0; i < 8; i++) await events.append('c-a', [tick({ n: i, poison: i === 3 })], i === 0 ? 'no_stream' : i - 1);
    const all = await events.readAll({ maxCount: 100 });
    const store = new SqliteReadStore(':memory:');
    const engine = new ProjectionEngine([counters('good'), counters('picky', (d) => d.poison === true)], events, store, {
      ...quiet,
      batchSize: 2,
      retries: 1,
      backoffMs: 100,
    });
    await engine.init();
    const started = Date.now();
    await engine.catchUp();
    // Its retry waited its backoff (not tried again at once by the batch projected while the first attempt committed).
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(await store.get('good', 'c-a')).toMatchObject({ count: 8 });
    // The picky one kept the three events before the poison, never more (nothing projected past it).
    expect(await store.get('picky', 'c-a')).toMatchObject({ count: 3, _position: all[2].position });
    expect(await store.getCheckpoint('picky')).toBe(all[2].position);
    expect(await store.find('picky_ticks', { orderBy: { field: 'id', direction: 'asc' }, limit: 100 })).toHaveLength(3);
    expect((await engine.status()).find((s) => s.name === 'picky')?.parked).toMatchObject({ event_id: all[3].id, attempts: 2 });
  });

  test('rebuild ends with the same documents', async () => {
    const { events, store } = await setup();
    const engine = new ProjectionEngine([counters('one'), counters('two')], events, store, quiet);
    await engine.init();
    await engine.catchUp();
    const dump = async () =>
      JSON.stringify(await Promise.all(['one', 'one_ticks', 'two', 'two_ticks'].map((c) => store.find(c, { orderBy: { field: 'id', direction: 'asc' }, limit: 100 }))));
    const before = await dump();
    expect(await engine.rebuild()).toEqual([
      { name: 'one', events: 5 },
      { name: 'two', events: 5 },
    ]);
    expect(await dump()).toBe(before);
    await engine.rebuild('two');
    expect(await dump()).toBe(before);
  });
});
