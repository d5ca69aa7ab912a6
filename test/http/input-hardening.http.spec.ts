import { connect, type AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';

/**
 * Input no store can hold, or that the parser should refuse, is a 400 (or 413/414/415/405) in the
 * API's error shape, naming the field, and changes nothing (the event store head does not move).
 */
let t: TestApp;
let key: string;
const api = () => t.as(key);

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

async function eventHead(): Promise<string | null> {
  const { EVENT_STORE } = await import('#platform/tokens.js');
  return t.app.get(EVENT_STORE).headPosition();
}

async function rejectedWithoutChange(send: () => Promise<{ status: number; body: any }>, status: number, code: string, param?: string | null) {
  const before = await eventHead();
  const res = await send();
  expect({ status: res.status, code: res.body?.error?.code, ...(param !== undefined ? { param: res.body?.error?.param } : {}) }).toEqual({
    status,
    code,
    ...(param !== undefined ? { param } : {}),
  });
  expect(res.body.error).toEqual(expect.objectContaining({ type: 'invalid_request_error', message: expect.any(String) }));
  expect(await eventHead()).toBe(before);
  return res;
}

describe('keys and values no store can hold', () => {
  test.each([
    ['a NUL in a key', { 'a\u0000b': 'v' }, 'meta_data[a\\u0000b]'],
    ['another control character in a key', { 'a\u0007b': 'v' }, 'meta_data[a\\u0007b]'],
    ['a $-prefixed key', { $set: 'v' }, 'meta_data[$set]'],
    ['a dotted key', { 'order.id': 'v' }, 'meta_data[order.id]'],
    ['a NUL in a value', { note: 'a\u0000b' }, 'meta_data[note]'],
    ['a lone surrogate in a value', { note: 'a\ud800b' }, 'meta_data[note]'],
  ])('%s in meta_data is a 400 naming the field', async (_what, meta, param) => {
    await rejectedWithoutChange(() => api().post('/v1/products', { name: 'p', meta_data: meta }), 400, 'parameter_invalid', param);
    await rejectedWithoutChange(() => api().post('/v1/customers', { email: 'x@example.com', meta_data: meta }), 400, 'parameter_invalid', param);
  });

  test('a NUL in any string field is a 400 naming it', async () => {
    await rejectedWithoutChange(() => api().post('/v1/products', { name: 'a\u0000b' }), 400, 'parameter_invalid', 'name');
  });

  test('tabs and newlines in values stay allowed', async () => {
    const res = await api().post('/v1/products', { name: 'p', meta_data: { note: 'line 1\nline 2\tx' } });
    expect(res.status).toBe(200);
    expect(res.body.meta_data).toEqual({ note: 'line 1\nline 2\tx' });
  });

  test('a __proto__ key is a 400 naming it, not "invalid JSON"', async () => {
    const res = await rejectedWithoutChange(
      () => api().post('/v1/products').set('Content-Type', 'application/json').send('{"name":"p","meta_data":{"__proto__":{"x":"1"}}}'),
      400,
      'parameter_invalid',
      'meta_data[__proto__]',
    );
    expect(res.body.error.message).not.toMatch(/JSON/);
  });
});

describe('the parser', () => {
  test('2,000 nested arrays are a 400 (nesting depth), not a 500', async () => {
    const body = `{"name":"p","meta_data":{"k":${'['.repeat(2000)}${']'.repeat(2000)}}}`;
    const res = await rejectedWithoutChange(() => api().post('/v1/products').set('Content-Type', 'application/json').send(body), 400, 'body_too_deep');
    expect(res.body.error.message).toMatch(/nest/i);
  });

  test('a missing Content-Type is a 415 saying to send application/json', async () => {
    const res = await rejectedWithoutChange(
      () => api().post('/v1/products').set('Content-Type', '').send(Buffer.from('{"name":"X"}')),
      415,
      'unsupported_media_type',
    );
    expect(res.body.error.message).toMatch(/application\/json/);
  });

  test.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])('Content-Type %s is a 415', async (type) => {
    await rejectedWithoutChange(() => api().post('/v1/products').set('Content-Type', type).send('{"name":"X"}'), 415, 'unsupported_media_type');
  });

  test('application/json; charset=utf-8 is accepted', async () => {
    const res = await api().post('/v1/products').set('Content-Type', 'application/json; charset=utf-8').send('{"name":"X"}');
    expect(res.status).toBe(200);
  });

  test('a POST without a body (no Content-Type) still works where no body is needed', async () => {
    const product = (await api().post('/v1/products', { name: 'to archive' })).body;
    const res = await api().post(`/v1/products/${product.id}`);
    expect(res.status).toBeLessThan(500);
    expect(res.status).not.toBe(415);
  });

  test('a body over the limit is a 413 in the API shape', async () => {
    const res = await api().post('/v1/products', { name: 'p', description: 'x'.repeat(2 * 1024 * 1024) });
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 413, code: 'body_too_large' });
  });
});

describe('error shapes', () => {
  test('an over-long path parameter is a 414 in the API shape', async () => {
    const res = await api().get(`/v1/products/${'a'.repeat(3000)}`);
    expect(res.status).toBe(414);
    expect(res.body.error).toEqual(expect.objectContaining({ type: 'invalid_request_error', code: 'uri_too_long', message: expect.any(String) }));
    expect(res.body.statusCode).toBeUndefined();
  });

  /** Sends raw bytes to the listening server and reads the whole answer (the server closes the connection). */
  async function raw(bytes: string): Promise<{ status: number; headers: string; body: string }> {
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
      let out = '';
      socket.on('data', (d) => (out += d.toString('utf8')));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });
    const [head, body] = text.split('\r\n\r\n');
    return { status: Number(head.split(' ')[1]), headers: head, body };
  }

  test('headers over Node\'s 16 KiB limit are a 431 in the API shape, not Fastify\'s', async () => {
    const res = await raw(`GET /v1/products HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(res.body)).toEqual({ error: { type: 'invalid_request_error', code: 'headers_too_large', message: expect.any(String), param: null } });
  });

  test('a request line Node cannot parse is a 400 in the API shape', async () => {
    const res = await raw('GE(T /v1/products HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: { type: 'invalid_request_error', code: 'request_malformed', message: expect.any(String), param: null } });
  });

  test('limit=abc says limit must be a whole number', async () => {
    const res = await api().get('/v1/products?limit=abc');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('limit');
    expect(res.body.error.message).toMatch(/integer|whole number/i);
    expect(res.body.error.message).not.toMatch(/greater than/);
  });

  test.each(['put', 'patch'])('%s on a known path is a 405 with Allow', async (method) => {
    const product = (await api().post('/v1/products', { name: 'p' })).body;
    for (const path of ['/v1/products', `/v1/products/${product.id}`]) {
      const res = await (t.http() as any)[method](path).set('Authorization', `Basic ${Buffer.from(`${key}:`).toString('base64')}`).send({});
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 405, code: 'method_not_allowed' });
      expect(res.headers.allow).toMatch(/GET|POST/);
    }
    const unknown = await (t.http() as any)[method]('/v1/nothing-here').send({});
    expect(unknown.status).toBe(404);
  });

  test('a Bearer key is accepted (as Stripe does) and documented in the OpenAPI security schemes', async () => {
    const res = await t.http().get('/v1/products').set('Authorization', `Bearer ${key}`);
    expect(res.status).toBe(200);
    const openapi = (await t.http().get('/openapi.json')).body;
    expect(openapi.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
  });
});

describe('currencies that are not money', () => {
  test.each(['XXX', 'XAU', 'XAG', 'XDR', 'XTS', 'XPT', 'XPD', 'XBA', 'XSU', 'XUA'])('%s is refused for a price', async (code) => {
    const product = (await api().post('/v1/products', { name: 'p' })).body;
    await rejectedWithoutChange(
      () => api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '10', currency: code }),
      400,
      'parameter_invalid',
      'currency',
    );
  });

  test('XOF, XAF, XCD, XPF (real currencies) are accepted', async () => {
    const product = (await api().post('/v1/products', { name: 'p' })).body;
    for (const code of ['XOF', 'XAF', 'XCD', 'XPF']) {
      const res = await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '10', currency: code });
      expect({ code, status: res.status }).toEqual({ code, status: 200 });
    }
  });
});

describe('a rejection is decided before anything is appended', () => {
  test('GBP price into a COP subscription without a rate: 400 currency_conversion_unavailable and no event at all', async () => {
    const { product, customer } = await billingSetup(api());
    const gbp = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '20', currency: 'GBP' })).body;
    expect(gbp.currency).toBe('GBP');
    const res = await rejectedWithoutChange(
      () =>
        api().post('/v1/subscriptions', {
          customer: customer.id,
          currency: 'COP',
          items: [{ price: gbp.id }],
          collection_method: 'charge',
          payment_information: card(),
        }),
      400,
      'currency_conversion_unavailable',
    );
    expect(res.body.error.param).toMatch(/items\[0\]/);
    const list = await api().get(`/v1/subscriptions?customer=${customer.id}`);
    expect(list.body.data ?? []).toEqual([]);
  });
});
