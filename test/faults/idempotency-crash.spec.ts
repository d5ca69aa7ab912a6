import { jest } from '@jest/globals';
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildService, type ChildService, removeBuild, startChild } from '../support/child-service.js';

/**
 * The measured scenario of issue 14: 200 create-subscription requests with distinct Idempotency-Keys,
 * the service SIGKILLed a third of the way through, restarted on the same data, every request retried
 * with its key until it gets a 200 → exactly 200 subscriptions, and every 200 answered before the kill
 * names the subscription the retry names.
 */
jest.setTimeout(300_000);

const REQUESTS = 200;
const CONCURRENCY = 8;
let build: string;
let child: ChildService | null = null;

beforeAll(() => {
  build = buildService();
});
afterAll(async () => {
  await child?.kill('SIGKILL');
  removeBuild(build);
});

async function call(url: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, {
    method,
    headers: { Authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

test('SIGKILL a third of the way through 200 create-subscription requests: retries with their keys make exactly 200 subscriptions', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-crash-'));
  const env = { IDEMPOTENCY_LEASE_MS: '1000', SCHEDULER_POLL_MS: '200', RATE_LIMIT_MAX: '0' };
  child = await startChild(build, dataDir, env);
  const key = child.testKey!;
  expect(key).toMatch(/^sk_test_/);
  const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => call(child!.url, key, method, path, body, headers);

  const product = (await api('POST', '/v1/products', { name: 'Crash plan' })).body;
  const price = (await api('POST', '/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900', currency: 'COP' })).body;
  const customer = (await api('POST', '/v1/customers', { email: 'crash@example.com', name: 'Crash' })).body;
  const body = {
    customer: customer.id,
    items: [{ price: price.id }],
    collection_method: 'charge',
    payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
  };

  const firstAnswers = new Map<number, string>();
  let sent = 0;
  let killed = false;
  const killAt = Math.floor(REQUESTS / 3);
  const worker = async () => {
    while (sent < REQUESTS && !killed) {
      const i = sent++;
      try {
        const res = await api('POST', '/v1/subscriptions', body, { 'Idempotency-Key': `crash-${i}` });
        if (res.status === 200) firstAnswers.set(i, res.body.id);
      } catch {
        // the process was killed under this request
      }
      if (!killed && sent >= killAt) {
        killed = true;
        await child!.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  expect(killed).toBe(true);
  const countCreated = () => {
    const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
    const { n } = db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'subscription.created'").get() as { n: number };
    db.close();
    return n;
  };
  // Subscriptions whose creation was under way (appended, not answered) when the process died.
  const interrupted = countCreated() - firstAnswers.size;

  child = await startChild(build, dataDir, env);
  const finalAnswers = new Map<number, string>();
  let retries = 0;
  for (let i = 0; i < REQUESTS; i++) {
    for (let attempt = 0; ; attempt++) {
      const res = await api('POST', '/v1/subscriptions', body, { 'Idempotency-Key': `crash-${i}` });
      retries++;
      if (res.status === 200) {
        finalAnswers.set(i, res.body.id);
        break;
      }
      if (attempt > 200) throw new Error(`key crash-${i}: still ${res.status} ${JSON.stringify(res.body)}\n${child!.output().slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await child.kill('SIGTERM');
  child = null;

  // Every answer before the kill names the subscription its retry names.
  for (const [i, id] of firstAnswers) expect(finalAnswers.get(i)).toBe(id);
  expect(new Set(finalAnswers.values()).size).toBe(REQUESTS);
  const created = countCreated();
  process.stderr.write(
    `\n[idempotency crash] requests ${REQUESTS}, killed after ${killAt} sent, answered 200 before the kill: ${firstAnswers.size}, created but unanswered at the kill: ${interrupted}, requests after restart: ${retries}, subscription.created: ${created}, duplicates: ${created - REQUESTS}\n`,
  );
  expect(created).toBe(REQUESTS);
});
