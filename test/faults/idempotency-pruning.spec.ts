import { createHash } from 'node:crypto';
import type { EventStore } from '#event-store/event-store.port.js';
import { IdempotencyPruner } from '#http/idempotency-pruner.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { inStore } from './support/crash-harness.js';

/**
 * Idempotency records are kept 24 hours (plus an hour's margin) and then deleted, so their number
 * stays bounded: a record older than that disappears from the event store, a retry with its key is
 * a new request, and a younger record is kept and still replays.
 */
let t: TestApp;
let onEsdb: TestApp;
afterAll(async () => {
  await t?.close();
  await onEsdb?.close();
});

const idempotencyStreams = (dataDir: string) =>
  inStore(dataDir, 'events', (db) => ({
    streams: (db.prepare("SELECT COUNT(*) AS n FROM streams WHERE stream_id LIKE 'idempotency-%'").get() as { n: number }).n,
    events: (db.prepare("SELECT COUNT(*) AS n FROM events WHERE stream_id LIKE 'idempotency-%'").get() as { n: number }).n,
  }));

test('records older than 25 hours are deleted, younger ones kept; a retry with a pruned key is a new request', async () => {
  t = await startTestApp({ now: new Date('2026-03-01T10:00:00.000Z'), embedded: true });
  const api = t.as((await t.account()).test_key);
  const pruner = t.app.get(IdempotencyPruner);

  const old = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(old.status).toBe(200);
  // 23 hours later: a second key; the first still replays.
  t.clock.set(new Date('2026-03-02T09:00:00.000Z'));
  const young = await api.post('/v1/products', { name: 'Young' }, { 'Idempotency-Key': 'young-key' });
  const replay = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body.id).toBe(old.body.id);
  expect(idempotencyStreams(t.dataDir)).toEqual({ streams: 2, events: 4 });

  // 24 h 30 min after the first key: inside the margin, nothing is pruned.
  t.clock.set(new Date('2026-03-02T10:30:00.000Z'));
  expect(await pruner.pruneOnce()).toBe(0);
  expect(idempotencyStreams(t.dataDir).streams).toBe(2);

  // 25 h 1 min after it: the first key's record is gone, the second (2 h old) stays.
  t.clock.set(new Date('2026-03-02T11:01:00.000Z'));
  expect(await pruner.pruneOnce()).toBe(1);
  expect(idempotencyStreams(t.dataDir)).toEqual({ streams: 1, events: 2 });
  expect(await pruner.pruneOnce()).toBe(0);

  // A retry with the pruned key is a new request (a new product); the young key still replays.
  const again = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(again.status).toBe(200);
  expect(again.headers['idempotent-replayed']).toBeUndefined();
  expect(again.body.id).not.toBe(old.body.id);
  const youngReplay = await api.post('/v1/products', { name: 'Young' }, { 'Idempotency-Key': 'young-key' });
  expect(youngReplay.headers['idempotent-replayed']).toBe('true');
  expect(youngReplay.body.id).toBe(young.body.id);
  // The products themselves are untouched by pruning.
  expect((await api.get(`/v1/products/${old.body.id}`)).status).toBe(200);
  expect(idempotencyStreams(t.dataDir)).toEqual({ streams: 2, events: 4 });
});

test('on EventStoreDB (its stand-in, or the server EVENTSTORE_URL names): old records are soft-deleted, a retry with a pruned key is a new request, a younger key still replays', async () => {
  const saved = process.env.TEST_STORES;
  if (!process.env.EVENTSTORE_URL) process.env.TEST_STORES = 'stand-ins';
  try {
    onEsdb = await startTestApp({ now: new Date('2026-03-01T10:00:00.000Z') });
  } finally {
    if (saved === undefined) delete process.env.TEST_STORES;
    else process.env.TEST_STORES = saved;
  }
  const events = onEsdb.app.get<EventStore>(EVENT_STORE);
  expect(events.kind).toBe('eventstoredb');
  const account = await onEsdb.account();
  const api = onEsdb.as(account.test_key);
  const pruner = onEsdb.app.get(IdempotencyPruner);
  const record = (key: string) => events.readStream(`idempotency-${createHash('sha256').update(`${account.id}|test|${key}`).digest('hex')}`);

  const old = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(old.status).toBe(200);
  onEsdb.clock.set(new Date('2026-03-02T09:00:00.000Z'));
  const young = await api.post('/v1/products', { name: 'Young' }, { 'Idempotency-Key': 'young-key' });
  expect(young.status).toBe(200);
  const replay = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body.id).toBe(old.body.id);
  expect((await record('old-key')).map((e) => e.type)).toEqual(['idempotency.claimed', 'idempotency.completed']);

  // Inside the margin: kept.
  onEsdb.clock.set(new Date('2026-03-02T10:30:00.000Z'));
  expect(await pruner.pruneOnce()).toBe(0);
  expect(await record('old-key')).toHaveLength(2);

  // 25 h 1 min after it: the old key's stream is deleted (reads as absent), the young one stays.
  onEsdb.clock.set(new Date('2026-03-02T11:01:00.000Z'));
  expect(await pruner.pruneOnce()).toBe(1);
  expect(await record('old-key')).toEqual([]);
  expect(await record('young-key')).toHaveLength(2);
  expect(await pruner.pruneOnce()).toBe(0);

  // The pruned key is claimed again from no_stream: a new request; the young key replays.
  const again = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(again.status).toBe(200);
  expect(again.headers['idempotent-replayed']).toBeUndefined();
  expect(again.body.id).not.toBe(old.body.id);
  const replayAgain = await api.post('/v1/products', { name: 'Old' }, { 'Idempotency-Key': 'old-key' });
  expect(replayAgain.headers['idempotent-replayed']).toBe('true');
  expect(replayAgain.body.id).toBe(again.body.id);
  const youngReplay = await api.post('/v1/products', { name: 'Young' }, { 'Idempotency-Key': 'young-key' });
  expect(youngReplay.body.id).toBe(young.body.id);
  expect((await api.get(`/v1/products/${old.body.id}`)).status).toBe(200);
}, 120_000);
