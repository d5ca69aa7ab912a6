import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Two service instances on one DATA_DIR stand in for several API processes on one pair of stores:
 * nothing they share lives in memory, so every guarantee must hold across them.
 */
let a: TestApp;
let b: TestApp;
let key: string;

beforeAll(async () => {
  a = await startTestApp();
  b = await startTestApp({ dataDir: a.dataDir });
  key = (await a.account()).test_key;
  // b learns of the account from the shared read models
  for (let i = 0; i < 50 && (await b.as(key).get('/v1/products')).status !== 200; i++) await new Promise((r) => setTimeout(r, 20));
});
afterAll(async () => {
  await b.close();
  await a.close();
});

test('a write on one instance is read at once on the other', async () => {
  const created = await a.as(key).post('/v1/products', { name: 'Shared' });
  expect(created.status).toBe(200);
  const read = await b.as(key).get(`/v1/products/${created.body.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toEqual(created.body);
  const updated = await b.as(key).post(`/v1/products/${created.body.id}/update`, { name: 'Shared v2' });
  expect((await a.as(key).get(`/v1/products/${created.body.id}`)).body.name).toBe('Shared v2');
  expect(updated.body.name).toBe('Shared v2');
});

test('one Idempotency-Key raced across instances has one effect', async () => {
  const headers = { 'Idempotency-Key': 'across-instances-1' };
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).as(key).post('/v1/products', { name: 'Once' }, headers)),
  );
  expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
  expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  const events = await a.as(key).get(`/v1/events?object_id=${results[0].body.id}`);
  expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['product.created']);
});

test('concurrent updates of one product from both instances all land, each once', async () => {
  const { body } = await a.as(key).post('/v1/products', { name: 'Counter' });
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).as(key).post(`/v1/products/${body.id}/update`, { meta_data: { [`k${i}`]: String(i) } })),
  );
  expect(results.every((r) => r.status === 200)).toBe(true);
  const final = await b.as(key).get(`/v1/products/${body.id}`);
  expect(Object.keys(final.body.meta_data).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
  const history = await a.as(key).get(`/v1/events?object_id=${body.id}&limit=100`);
  expect(history.body.data).toHaveLength(11);
});
