import { jest } from '@jest/globals';
import { productsProjection } from '#projections/products.projection.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A projection that cannot get past an event is parked after its retries: the others go on, /health
 * says why, and a request that needs it answers a clear 503 at once instead of waiting.
 */
let t: TestApp;
let key: string;

beforeAll(async () => {
  // The projection is replaced in this process below: the pipeline runs on the event loop here (the
  // pipeline's own thread parks a projection the same way: projections/pipeline-thread.spec.ts).
  t = await startTestApp({ env: { PROJECTIONS_THREAD: 'inline' } });
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

test('a poisoned product parks the products projection; requests get a 503 quickly; resume recovers', async () => {
  const project = productsProjection.project;
  const spy = jest.spyOn(productsProjection, 'project').mockImplementation((doc, event, id) => {
    if ((event.data as { name?: string }).name === 'poison') throw new Error('cannot project this product');
    return project(doc, event, id);
  });
  try {
    const started = Date.now();
    const res = await t.as(key).post('/v1/products', { name: 'poison' });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ type: 'api_error', code: 'read_model_unavailable', message: expect.stringContaining('products') });
    expect(Date.now() - started).toBeLessThan(8000); // the retries (about 1.5 s), not the 10 s wait

    const health = await t.http().get('/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    const products = health.body.projections.find((p: { name: string }) => p.name === 'products');
    expect(products.parked).toMatchObject({ event_type: 'product.created', error: 'cannot project this product' });
    // The others went on.
    const parked = health.body.projections.filter((p: { parked: unknown }) => p.parked).map((p: { name: string }) => p.name);
    expect(parked).toEqual(['products']);
    expect(health.body.projections.find((p: { name: string }) => p.name === 'customers')).toMatchObject({ caught_up: true, parked: null });

    // Later writes also need the parked projection (its checkpoint is behind them): a 503 at once.
    const quick = Date.now();
    expect((await t.as(key).post('/v1/customers', { email: 'a@example.com', name: 'A' })).status).toBe(503);
    expect(Date.now() - quick).toBeLessThan(2000);

    // The customers projection writes customer.created's feed entry (the 503 answered before it had, on a
    // loaded machine), but the feed stops before the parked projection's event: a consumer paging it
    // never passes an entry that is still to come.
    const customersCaughtUp = async () => (await t.app.get(ProjectionEngine).status()).find((p) => p.name === 'customers')?.caught_up;
    for (const until = Date.now() + 10_000; !(await customersCaughtUp()) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    expect(await customersCaughtUp()).toBe(true);
    const stalled = await t.as(key).get('/v1/events?limit=100');
    expect(stalled.status).toBe(200);
    expect(stalled.body.data.map((e: { type: string }) => e.type)).not.toContain('customer.created');
    expect(stalled.body.data.map((e: { type: string }) => e.type)).not.toContain('product.created');
    // The service's logger has the failure and the parking (with the event), and the two 503s with
    // their reason (kept by the test logger, not printed).
    expect(await t.logs.expectError(/\[projections\] projection products failed on product\.created .*retrying err=Error: cannot project this product/)).toHaveLength(1);
    expect(await t.logs.expectError(/\[projections\] projection products parked after \d+ attempts on product\.created .*: cannot project this product/)).toHaveLength(1);
    expect(await t.logs.expectError(/read model products is stopped after an error/)).toHaveLength(2);
  } finally {
    spy.mockRestore();
  }

  // Fixed and resumed: the projection catches up, and the service answers as before.
  await t.app.get(ProjectionEngine).resume('products');
  t.clock.advanceMs(1000);
  const ok = await t.as(key).post('/v1/products', { name: 'fine' });
  expect(ok.status).toBe(200);
  expect((await t.as(key).get('/v1/products?limit=10')).body.data.map((p: { name: string }) => p.name)).toEqual(['fine', 'poison']);
  // Every entry is there once the projection has caught up, in the order of the events.
  const feed = (await t.as(key).get('/v1/events?limit=100')).body.data.map((e: { type: string; data: { object: { name?: string } } }) => `${e.type} ${e.data.object.name}`);
  expect(feed).toEqual(['product.created poison', 'customer.created A', 'product.created fine']);
  expect((await t.http().get('/health')).body.status).toBe('ok');
});
