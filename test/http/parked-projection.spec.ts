import { jest } from '@jest/globals';
import { productsProjection } from '../../projections/products.projection.js';
import { ProjectionEngine } from '../../projections/runtime/projection-engine.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A projection that cannot get past an event is parked after its retries: the others go on, /health
 * says why, and a request that needs it answers a clear 503 at once instead of waiting.
 */
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

test('a poisoned product parks the products projection; requests get a 503 quickly; resume recovers', async () => {
  const project = productsProjection.project;
  const spy = jest.spyOn(productsProjection, 'project').mockImplementation((doc, event, id) => {
    if ((event.data as { name?: string }).name === 'poison') throw new Error('cannot project this product');
    return project(doc, event, id);
  });
  const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
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
    // The others went on (the feed renders products with the products projector, so it is parked too).
    const parked = health.body.projections.filter((p: { parked: unknown }) => p.parked).map((p: { name: string }) => p.name);
    expect(parked.sort()).toEqual(['event_feed', 'products']);
    expect(health.body.projections.find((p: { name: string }) => p.name === 'customers')).toMatchObject({ caught_up: true, parked: null });

    // Later writes also need the parked projection (its checkpoint is behind them): a 503 at once.
    const quick = Date.now();
    expect((await t.as(key).post('/v1/customers', { email: 'a@example.com', name: 'A' })).status).toBe(503);
    expect(Date.now() - quick).toBeLessThan(2000);
  } finally {
    spy.mockRestore();
    log.mockRestore();
  }

  // Fixed and resumed: the projection catches up, and the service answers as before.
  await t.app.get(ProjectionEngine).resume('products');
  await t.app.get(ProjectionEngine).resume('event_feed');
  t.clock.advanceMs(1000);
  const ok = await t.as(key).post('/v1/products', { name: 'fine' });
  expect(ok.status).toBe(200);
  expect((await t.as(key).get('/v1/products?limit=10')).body.data.map((p: { name: string }) => p.name)).toEqual(['fine', 'poison']);
  expect((await t.http().get('/health')).body.status).toBe('ok');
});
