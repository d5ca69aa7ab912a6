import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../libs/event-store/src/sqlite-event-store.js';
import { SqliteReadStore } from '../../libs/read-store/src/sqlite-read-store.js';
import type { Projection } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';

interface Counter {
  id: string;
  count: number;
}

/** Counts `tick` events per stream; derives one log entry per event. */
const counters: Projection<Counter & Record<string, unknown>> = {
  name: 'counters',
  collection: 'counters',
  collections: [
    { name: 'counters', indexes: [] },
    { name: 'ticks', indexes: [] },
  ],
  documentIds: (e) => (e.type === 'tick' ? [e.streamId] : []),
  project: (doc, _e, id) => ({ id, count: (doc?.count ?? 0) + 1 }),
  derive: (e) => [{ collection: 'ticks', id: e.id, doc: { id: e.id } }],
};

const tick = () => ({ id: randomUUID(), type: 'tick', data: {}, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });

async function setup() {
  const events = new SqliteEventStore(':memory:');
  const store = new SqliteReadStore(':memory:');
  await events.append('c-a', [tick(), tick()], 'no_stream');
  await events.append('c-b', [tick()], 'no_stream');
  await events.append('other-x', [{ ...tick(), type: 'other' }], 'no_stream');
  await events.append('c-a', [tick()], 1);
  return { events, store };
}

describe('projection runner', () => {
  test('applies events in order and checkpoints with the documents', async () => {
    const { events, store } = await setup();
    const runner = new ProjectionRunner(counters, events, store);
    await runner.init();
    expect(await runner.catchUp()).toBe(5);
    expect(await store.get('counters', 'c-a')).toMatchObject({ count: 3 });
    expect(await store.get('counters', 'c-b')).toMatchObject({ count: 1 });
    expect(await store.getCheckpoint('counters')).toBe(await events.headPosition());
  });

  test('is idempotent when events are delivered again', async () => {
    const { events, store } = await setup();
    const runner = new ProjectionRunner(counters, events, store);
    await runner.init();
    await runner.catchUp();
    const all = await events.readAll({ maxCount: 100 });
    await runner.apply(all);
    await runner.apply(all.slice(1, 3));
    expect(await store.get('counters', 'c-a')).toMatchObject({ count: 3 });
    expect(await store.find('ticks', { orderBy: { field: 'id', direction: 'asc' }, limit: 100 })).toHaveLength(4);
  });

  test('resumes from its checkpoint after a restart', async () => {
    const { events, store } = await setup();
    const first = new ProjectionRunner(counters, events, store, { batchSize: 2 });
    await first.init();
    await first.apply(await events.readAll({ maxCount: 2 }));
    const second = new ProjectionRunner(counters, events, store);
    await second.init();
    expect(await second.catchUp()).toBe(3);
    expect(await store.get('counters', 'c-a')).toMatchObject({ count: 3 });
  });

  test('follows new events live and tells waiters when it has applied them', async () => {
    const { events, store } = await setup();
    const runner = new ProjectionRunner(counters, events, store, { pollMs: 5000 });
    await runner.init();
    runner.start();
    const { position } = await events.append('c-b', [tick()], 0);
    await runner.waitFor(position);
    expect(await store.get('counters', 'c-b')).toMatchObject({ count: 2 });
    await runner.stop();
  });
});
