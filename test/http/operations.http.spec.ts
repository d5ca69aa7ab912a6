import { mkdtempSync } from 'node:fs';
import request from 'supertest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { retryWithBackoff } from '#platform/retry.js';
import { mayReadMetrics } from '#api/metrics.controller.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' } });
  });
  afterAll(() => t.close());

  test('beyond the limit a key gets 429 rate_limit with Retry-After, another key is unaffected, /health is never limited', async () => {
    const a = (await t.account('A')).test_key;
    const b = (await t.account('B')).test_key;
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 7; i++) {
      last = await t.as(a).get('/v1/products');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.body.error).toEqual(expect.objectContaining({ type: 'invalid_request_error', code: 'rate_limit', message: expect.stringMatching(/Retry-After/) }));
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect((await t.as(b).get('/v1/products')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await t.http().get('/health')).status).toBe(200);
  });
});

describe('readiness, metrics', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp();
    key = (await t.account()).test_key;
  });
  afterAll(() => t.close());

  test('/health/ready is 200 with both stores answering', async () => {
    const res = await t.http().get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', started: true, event_store: true, read_store: true });
  });

  test('/metrics answers a caller on this machine; another only with METRICS_TOKEN as a Bearer token', async () => {
    // Over the network the test's own requests come from loopback:
    expect((await t.http().get('/metrics')).status).toBe(200);
    // the rule for other callers:
    expect(mayReadMetrics('127.0.0.1', undefined, null)).toBe(true);
    expect(mayReadMetrics('::1', undefined, null)).toBe(true);
    expect(mayReadMetrics('::ffff:127.0.0.1', undefined, null)).toBe(true);
    expect(mayReadMetrics('10.1.2.3', undefined, null)).toBe(false);
    expect(mayReadMetrics('10.1.2.3', 'Bearer anything', null)).toBe(false);
    expect(mayReadMetrics('::ffff:10.1.2.3', undefined, 's3cret')).toBe(false);
    expect(mayReadMetrics('10.1.2.3', 'Bearer wrong', 's3cret')).toBe(false);
    expect(mayReadMetrics('10.1.2.3', 'Basic czNjcmV0', 's3cret')).toBe(false);
    expect(mayReadMetrics('10.1.2.3', 'Bearer s3cret', 's3cret')).toBe(true);
  });

  test('/metrics exposes request latency by route, appends, projection lag, scheduler backlog and the parked hook', async () => {
    const product = await t.as(key).post('/v1/products', { name: 'Metered' });
    await t.as(key).get(`/v1/products/${product.body.id}`);
    const res = await t.http().get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/billing_http_request_duration_seconds_count\{method="GET",route="\/v1\/products\/:id",status="200"\} \d+/);
    expect(res.text).toMatch(/billing_events_appended_total\{category="product"\} [1-9]/);
    expect(res.text).toMatch(/billing_projection_lag\{projection="products"\} 0/);
    expect(res.text).toMatch(/billing_projection_caught_up\{projection="products"\} 1/);
    expect(res.text).toMatch(/billing_scheduler_backlog\{kind="subscription"\} 0/);
    expect(res.text).toMatch(/billing_projections_parked\{projection="products"\} 0/);
  });
});

describe('start-up', () => {
  test('a read store that does not answer for its first calls is retried with backoff; the service starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'billing-flaky-'));
    const real = new SqliteReadStore(join(dataDir, 'read-models.sqlite'));
    let failures = 0;
    const flaky = new Proxy(real, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || prop === 'close') return value;
        return (...args: unknown[]) => {
          if (failures < 3) {
            failures++;
            return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:27017'));
          }
          return value.apply(target, args);
        };
      },
    }) as ReadStore;
    const { createApp } = await import('#api/create-app.js');
    const { loadConfig } = await import('#platform/config.js');
    const app = await createApp({ config: loadConfig({ DATA_DIR: dataDir, SCHEDULER: 'off', RATE_LIMIT_MAX: '0' }), readStore: flaky });
    try {
      expect(failures).toBe(3);
      const ready = await request(app.getHttpServer()).get('/health/ready');
      expect(ready.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  test('retryWithBackoff gives up after its budget with the last error', async () => {
    const waits: number[] = [];
    await expect(
      retryWithBackoff(async () => Promise.reject(new Error('down')), { maxMs: 2000, sleep: async (ms) => void waits.push(ms) }),
    ).rejects.toThrow('down');
    expect(waits).toEqual([250, 500, 1000]);
  });
});

describe('OpenAPI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('every /v1 operation describes its 2xx body and its error codes with the Error schema', async () => {
    const doc = (await t.http().get('/openapi.json')).body;
    const missing: string[] = [];
    let operations = 0;
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      if (!path.startsWith('/v1/')) continue;
      for (const [method, op] of Object.entries<any>(methods)) {
        operations++;
        const ok = Object.entries<any>(op.responses).find(([code]) => code.startsWith('2'));
        // JSON, or JSON Lines for the streamed exports (each line's schema).
        if (!ok?.[1].content?.['application/json']?.schema && !ok?.[1].content?.['application/x-ndjson']?.schema) missing.push(`${method} ${path}: 2xx`);
        for (const code of ['400', '401', '429', ...(method === 'post' ? ['409', '415'] : []), ...(path.includes('{') ? ['404'] : [])]) {
          if (op.responses[code]?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error') missing.push(`${method} ${path}: ${code}`);
        }
      }
    }
    expect(operations).toBeGreaterThan(60);
    expect(missing).toEqual([]);
    expect(doc.paths['/v1/products'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ProductList');
    expect(doc.paths['/v1/products/{id}'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Product');
    expect(doc.paths['/v1/subscriptions'].post.responses['402']).toBeDefined();
  });
});
