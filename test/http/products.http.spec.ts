import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let liveKey: string;

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account();
  key = account.test_key;
  liveKey = account.live_key;
});
afterAll(() => t.close());

describe('products', () => {
  test('create returns the product with every field, and GET returns the same', async () => {
    const res = await t.as(key).post('/v1/products', {
      name: 'Plan Oro',
      description: 'Monthly gold plan',
      product_merchant_id: 'm-1',
      image: 'https://example.com/gold.png',
      invoice_settings: { invoice_tax_id: 'IVA', invoice_tax_percentage: '19' },
      meta_data: { sku: 'GOLD' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^prod_[0-9A-Za-z]{24}$/),
      object: 'product',
      name: 'Plan Oro',
      description: 'Monthly gold plan',
      status: 'active',
      product_merchant_id: 'm-1',
      product_invoicing_id: null,
      product_shopA_id: null,
      product_shopB_id: null,
      image: 'https://example.com/gold.png',
      invoice_settings: { invoice_tax_id: 'IVA', invoice_tax_percentage: '19' },
      meta_data: { sku: 'GOLD' },
      created_date: '2026-11-23 10:00:00',
      is_test: true,
    });
    const got = await t.as(key).get(`/v1/products/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('test objects are invisible to the live key, and other accounts get 404', async () => {
    const res = await t.as(key).post('/v1/products', { name: 'Hidden' });
    expect((await t.as(liveKey).get(`/v1/products/${res.body.id}`)).status).toBe(404);
    const other = await t.account('Other');
    const r = await t.as(other.test_key).get(`/v1/products/${res.body.id}`);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });
  });

  test('update merges fields and meta_data; delete hides the product', async () => {
    const { body } = await t.as(key).post('/v1/products', { name: 'P', meta_data: { a: '1', b: '2' } });
    const upd = await t.as(key).post(`/v1/products/${body.id}/update`, { status: 'inactive', meta_data: { a: '', c: '3' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ status: 'inactive', name: 'P', meta_data: { b: '2', c: '3' } });
    const del = await t.as(key).delete(`/v1/products/${body.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: body.id, object: 'product', deleted: true });
    expect((await t.as(key).get(`/v1/products/${body.id}`)).status).toBe(404);
  });

  test('rejects unknown fields by name, bad types and missing name with a 400 error body', async () => {
    const unknown = await t.as(key).post('/v1/products', { name: 'x', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: { type: 'invalid_request_error', code: 'parameter_unknown', message: expect.stringContaining('colour'), param: 'colour' },
    });
    const missing = await t.as(key).post('/v1/products', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'name' });
    const nested = await t.as(key).post('/v1/products', { name: 'x', invoice_settings: { invoice_tax_percentage: 5 } });
    expect(nested.status).toBe(400);
    expect(nested.body.error.param).toBe('invoice_settings[invoice_tax_percentage]');
    const pct = await t.as(key).post('/v1/products', { name: 'x', invoice_settings: { invoice_tax_percentage: '101' } });
    expect(pct.status).toBe(400);
    const meta = await t.as(key).post('/v1/products', { name: 'x', meta_data: { k: 'v'.repeat(256) } });
    expect(meta.status).toBe(400);
    expect(meta.body.error.param).toBe('meta_data[k]');
  });

  test('malformed JSON is a 400 with the error body, not a 5xx', async () => {
    const res = await t
      .http()
      .post('/v1/products')
      .set('Authorization', `Basic ${Buffer.from(`${key}:`).toString('base64')}`)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  test('lists newest first with cursor pagination', async () => {
    const other = await t.account('Lister');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advanceMs(1000);
      ids.push((await t.as(other.test_key).post('/v1/products', { name: `p${i}` })).body.id);
    }
    const first = await t.as(other.test_key).get('/v1/products?limit=2');
    expect(first.body.data.map((p: { id: string }) => p.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await t.as(other.test_key).get(`/v1/products?limit=3&starting_after=${ids[3]}`);
    expect(second.body.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(second.body.has_more).toBe(false);
    expect((await t.as(other.test_key).get('/v1/products?limit=0')).status).toBe(400);
  });
});

describe('authentication', () => {
  test('missing or wrong credentials are 401 with the JSON error body', async () => {
    const none = await t.http().get('/v1/products');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
    // Change the last character (a random base62 one: replacing it by a fixed letter keeps it 1 time in 62).
    const wrong = await t.as(`${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`).get('/v1/products');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_api_key');
    const garbage = await t.http().get('/v1/products').set('Authorization', 'Basic !!!');
    expect(garbage.status).toBe(401);
  });
});

describe('idempotency', () => {
  test('a retry with the same key and body returns the first response and creates nothing new', async () => {
    const headers = { 'Idempotency-Key': 'create-gold-1' };
    const first = await t.as(key).post('/v1/products', { name: 'Idem' }, headers);
    const again = await t.as(key).post('/v1/products', { name: 'Idem' }, headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const events = await t.as(key).get(`/v1/events?object_id=${first.body.id}`);
    expect(events.body.data).toHaveLength(1);
  });

  test('racing requests with one key have one effect', async () => {
    const headers = { 'Idempotency-Key': 'race-1' };
    const results = await Promise.all(Array.from({ length: 8 }, () => t.as(key).post('/v1/products', { name: 'Race' }, headers)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  test('the same key with another body is rejected', async () => {
    const headers = { 'Idempotency-Key': 'k-2' };
    await t.as(key).post('/v1/products', { name: 'A' }, headers);
    const res = await t.as(key).post('/v1/products', { name: 'B' }, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('idempotency_error');
  });
});

describe('event feed', () => {
  test('every change is an evt_ event with data.object as it stood after it', async () => {
    const acct = await t.account('Feed');
    const k = acct.test_key;
    const p = (await t.as(k).post('/v1/products', { name: 'v1' })).body;
    await t.as(k).post(`/v1/products/${p.id}/update`, { name: 'v2' });
    const feed = await t.as(k).get('/v1/events');
    expect(feed.status).toBe(200);
    expect(feed.body.data.map((e: { type: string }) => e.type)).toEqual(['product.created', 'product.updated']);
    const [created, updated] = feed.body.data;
    expect(created).toMatchObject({ id: expect.stringMatching(/^evt_/), object: 'event', is_test: true, data: { object: { id: p.id, name: 'v1' } } });
    expect(updated.data.object.name).toBe('v2');
    expect((await t.as(k).get(`/v1/events/${created.id}`)).body).toEqual(created);
    const page = await t.as(k).get(`/v1/events?starting_after=${created.id}`);
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual([updated.id]);
    expect((await t.as(acct.live_key).get('/v1/events')).body.data).toEqual([]);
  });
});

describe('service', () => {
  test('health answers without credentials; OpenAPI is served', async () => {
    const h = await t.http().get('/health');
    expect(h.status).toBe(200);
    expect(h.body.status).toBe('ok');
    const doc = await t.http().get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v1/products', '/v1/events']));
    expect((await t.http().get('/docs')).status).toBe(200);
  });
  test('an unknown path is a 404 with the error body', async () => {
    const r = await t.as(key).get('/v1/nothing');
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('invalid_request_error');
  });
});
