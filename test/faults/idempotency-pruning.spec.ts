import { IdempotencyPruner } from '../../libs/http/src/idempotency-pruner.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { inStore } from './support/crash-harness.js';

/**
 * Idempotency records are kept 24 hours (plus an hour's margin) and then deleted, so their number
 * stays bounded: a record older than that disappears from the event store, a retry with its key is
 * a new request, and a younger record is kept and still replays.
 */
let t: TestApp;
afterAll(() => t?.close());

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
