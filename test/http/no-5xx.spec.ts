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
    const ref = op?.requestBody?.content?.['application/json']?.schema?.$ref;
    if (!ref) continue;
    const url = path.replace('{id}', product);
    const schema = schemaOf(ref);
    for (const field of Object.keys(schema.properties ?? {})) {
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
});

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
