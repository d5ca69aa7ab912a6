import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * No input produces a 5xx: every field of every POST body described in the OpenAPI document gets
 * values of every wrong shape, and ids and queries get junk.
 */
let t: TestApp;
let key: string;
let openapi: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  openapi = (await t.http().get('/openapi.json')).body;
});
afterAll(() => t.close());

const JUNK: unknown[] = [null, 0, -1, 1.5, 1e308, '', ' ', 'x'.repeat(5000), '💥\u0000', [], [1, 'a'], {}, { $gt: '' }, true, '1e400', '-0', '999999999999999999999999999.99'];

function schemaOf(ref: string) {
  return openapi.components.schemas[ref.split('/').pop()!];
}

test('no body field value of a wrong shape gets a 5xx', async () => {
  const product = (await t.as(key).post('/v1/products', { name: 'p' })).body.id;
  let requests = 0;
  for (const [path, methods] of Object.entries(openapi.paths)) {
    const op = methods.post;
    // A body is one schema or a choice of them (oneOf: creating a price); the fields of all of them.
    const bodySchema = op?.requestBody?.content?.['application/json']?.schema;
    const refs: string[] = bodySchema?.$ref ? [bodySchema.$ref] : (bodySchema?.oneOf ?? []).map((s: { $ref: string }) => s.$ref);
    if (refs.length === 0) continue;
    const url = path.replace('{id}', product);
    const fields = new Set(refs.flatMap((ref) => Object.keys(schemaOf(ref).properties ?? {})));
    for (const field of fields) {
      for (const value of JUNK) {
        const res = await t.as(key).post(url, { [field]: value });
        requests++;
        if (res.status >= 500) throw new Error(`${url} ${field}=${JSON.stringify(value)} → ${res.status} ${JSON.stringify(res.body)}`);
        expect(res.body.error ?? res.body).toBeDefined();
      }
    }
    for (const body of ['[]', '"text"', '42', 'null', '{"a":', '{"__proto__":{"x":1}}']) {
      const res = await t.as(key).post(url).set('Content-Type', 'application/json').send(body);
      requests++;
      expect(res.status).toBeLessThan(500);
    }
  }
  expect(requests).toBeGreaterThan(100);
  // ~4,600 requests since the checkout, payment link, storefront and coupon bodies (~1,900 of them); ~10 ms each on a loaded machine.
}, 300_000);

test('junk ids, paths and query strings are 4xx', async () => {
  const ids = ['x', 'prod_', '%00', 'a'.repeat(3000), '../../etc', "' OR 1=1 --", 'evt_zz'];
  for (const id of ids) {
    for (const path of ['/v1/products/', '/v1/prices/', '/v1/customers/', '/v1/events/']) {
      const res = await t.as(key).get(path + encodeURIComponent(id));
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  }
  for (const q of ['limit=abc', 'limit=-5', 'limit=1e9', 'starting_after=', 'starting_after[]=x', 'limit=10&limit=20', 'type[$ne]=x']) {
    for (const path of ['/v1/products', '/v1/prices', '/v1/customers', '/v1/events']) {
      const res = await t.as(key).get(`${path}?${q}`);
      expect(res.status).toBeLessThan(500);
    }
  }
});

/** Junk in one field of an otherwise valid body reaches the domain code, not only the validation pipe. */
test('a valid billing body with one field junked never gets a 5xx', async () => {
  const api = t.as(key);
  const product = (await api.post('/v1/products', { name: 'fuzz' })).body.id;
  const price = (await api.post('/v1/prices', { product_id: product, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '1000' })).body.id;
  const oneTime = (await api.post('/v1/prices', { product_id: product, type: 'one_time', unit_price: '500' })).body.id;
  const customer = (await api.post('/v1/customers', { email: `fuzz.${Date.now()}@example.com` })).body.id;
  const card = { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030 } };
  const sub = (await api.post('/v1/subscriptions', { customer, items: [{ price }], payment_information: card })).body;
  const collection = () => api.post('/v1/collections', { customer, items: [{ price: oneTime }], collection_method: 'collect', days_until_due: 3 });
  const pending = (await collection()).body.id;
  const bases: Array<[string, Record<string, unknown>]> = [
    ['/v1/subscriptions', { customer, items: [{ price, quantity: 2 }], payment_information: card, discounts: [{ code: 'X', percent: '10', duration_in_collections: 2 }], meta_data: { a: 'b' } }],
    ['/v1/subscriptions', { customer, items: [{ price }], collection_method: 'collect', days_until_due: 5, trial_days: 7, switch_to_charge: true }],
    ['/v1/subscriptions/migrate', { customer, items: [{ price }], collection_method: 'collect', days_until_due: 5, next_renewal_date: '2027-01-01T00:00:00.000Z' }],
    [`/v1/subscriptions/${sub.id}/update`, { items: [{ id: sub.items[0].id, quantity: 3 }], discounts: [{ code: 'Y', amount: '100' }], meta_data: { k: 'v' } }],
    [`/v1/subscriptions/${sub.id}/pause`, { resumes_at: '2027-01-01T00:00:00.000Z' }],
    [`/v1/subscriptions/${sub.id}/shipping_item`, { description: 'Envío', amount: '1000' }],
    ['/v1/subscription_items', { subscription: sub.id, price, quantity: 1 }],
    ['/v1/collections', { customer, items: [{ price: oneTime, quantity: 2 }], collection_method: 'collect', days_until_due: 3, discounts: [{ code: 'Z', amount: '10' }] }],
    [`/v1/collections/${pending}/pay`, { payment_information: card }],
    [`/v1/collections/${pending}/update/items`, { items: [{ price: oneTime, quantity: 1 }] }],
    [`/v1/collections/${pending}/update/discounts`, { discounts: [{ code: 'Q', percent: '5' }] }],
    [`/v1/collections/${sub.latest_collection}/refund`, { amount: '1.00', reason: 'x' }],
    ['/v1/payment_methods/migrate', { customer, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_x1', card: { brand: 'visa', last4: '4242', exp_month: 1, exp_year: 2030 } }],
  ];
  const junk: unknown[] = [null, -1, 1.5, '', 'x'.repeat(3000), [], {}, true, '1e400', '999999999999999999999999999.99'];
  let requests = 0;
  for (const [url, base] of bases) {
    const paths = [...Object.keys(base).map((k) => [k]), ...Object.entries(base).flatMap(([k, v]) => (Array.isArray(v) && v[0] && typeof v[0] === 'object' ? Object.keys(v[0]).map((f) => [k, '0', f]) : []))];
    for (const path of paths) {
      for (const value of junk) {
        const body = structuredClone(base) as Record<string, any>;
        let at: any = body;
        for (const p of path.slice(0, -1)) at = at[p];
        at[path[path.length - 1]] = value;
        const res = await api.post(url, body);
        requests++;
        if (res.status >= 500) throw new Error(`${url} ${path.join('.')}=${JSON.stringify(value).slice(0, 50)} → ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
  }
  expect(requests).toBeGreaterThan(300);
}, 240_000);

test('junk ids on billing resources are 4xx', async () => {
  for (const id of ['x', 'sub_', '%00', 'a'.repeat(3000), "' OR 1=1 --"]) {
    for (const path of ['/v1/subscriptions/', '/v1/collections/', '/v1/charges/', '/v1/transactions/', '/v1/payment_methods/', '/v1/subscription_items/']) {
      const res = await t.as(key).get(path + encodeURIComponent(id));
      expect(res.status).toBe(id.length > 2000 ? 414 : 404);
    }
    for (const action of ['pay', 'void', 'refund', 'send', 'mark_uncollectible']) {
      const res = await t.as(key).post(`/v1/collections/${encodeURIComponent(id)}/${action}`, {});
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
  }
  const res = await t.as(key).get('/v1/subscriptions/sub_x?as_of=notatime');
  expect(res.status).toBeLessThan(500);
});
