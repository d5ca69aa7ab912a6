import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildService, type ChildService, removeBuild, startChild } from '../support/child-service.js';
import { report } from '../support/test-output.js';
import { apiClient, burstWithKill, chargeSubscriptionBody, countEvents, feedAgainstEvents, inStore, retryUntil200 } from './support/crash-harness.js';

/**
 * Issue 14, §3: a burst of 500 create-subscription requests with distinct Idempotency-Keys (16 in
 * flight), the service SIGKILLed a third of the way through, restarted on the same data, every request
 * retried with its key until it gets a 200. Then: every key made exactly one subscription (and every
 * 200 answered before the kill names the subscription the retry names), no collection has two
 * successful charges, and every appended event of a public object is in the feed exactly once.
 * (The first measurement of issue 14 — 200 keys, 205 subscriptions — is this scenario at 200.)
 */
jest.setTimeout(300_000);

const REQUESTS = 500;
const CONCURRENCY = 16;
let build: string;
let child: ChildService | null = null;

beforeAll(() => {
  build = buildService();
});
afterAll(async () => {
  await child?.kill('SIGKILL');
  removeBuild(build);
});

test('SIGKILL a third of the way through 500 keyed create-subscription requests: retries make exactly 500 subscriptions, one charge per collection, every event in the feed once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'billing-crash-'));
  // Embedded stores always: the invariants are read from the SQLite files.
  const env = { EVENTSTORE_URL: '', MONGO_URL: '', IDEMPOTENCY_LEASE_MS: '1000', SCHEDULER_POLL_MS: '200', RATE_LIMIT_MAX: '0', WEBHOOKS: 'off' };
  child = await startChild(build, dataDir, env);
  const key = child.testKey!;
  expect(key).toMatch(/^sk_test_/);
  const api = apiClient(() => child!.url, key);
  const body = await chargeSubscriptionBody(api);
  const create = (i: number) => api('POST', '/v1/subscriptions', body, { 'Idempotency-Key': `crash-${i}` });

  const killAt = Math.floor(REQUESTS / 3);
  const burst = await burstWithKill({ requests: REQUESTS, concurrency: CONCURRENCY, killAt, send: create, kill: () => child!.kill('SIGKILL') });
  expect(burst.killed).toBe(true);
  // Subscriptions whose creation was under way (appended, not answered) when the process died.
  const interrupted = countEvents(dataDir, 'subscription.created') - burst.answered.size;

  child = await startChild(build, dataDir, env);
  const finalAnswers = new Map<number, string>();
  let calls = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const done = await retryUntil200(() => create(i), () => `key crash-${i}\n${child!.output().slice(-4000)}`);
    finalAnswers.set(i, done.body.id);
    calls += done.calls;
  }
  await child.kill('SIGTERM');
  child = null;

  // Every answer before the kill names the subscription its retry names; every key its own subscription.
  for (const [i, id] of burst.answered) expect(finalAnswers.get(i)).toBe(id);
  expect(new Set(finalAnswers.values()).size).toBe(REQUESTS);

  const created = countEvents(dataDir, 'subscription.created');
  const stores = inStore(dataDir, 'events', (db) => ({
    // The same key twice in subscription.created's metadata: a duplicate made by a retry.
    keysTwice: (db.prepare("SELECT COUNT(*) AS n FROM (SELECT json_extract(metadata, '$.idempotency_key') AS k FROM events WHERE type = 'subscription.created' GROUP BY k HAVING COUNT(*) > 1)").get() as { n: number }).n,
    // Per collection stream: charges created, charges paid, collections paid.
    collections: db
      .prepare(
        `SELECT stream_id, SUM(type = 'charge.created') AS charges, SUM(type = 'charge.paid') AS paid, SUM(type = 'collection.paid') AS collection_paid
           FROM events WHERE stream_id LIKE 'collection-%' GROUP BY stream_id`,
      )
      .all() as { stream_id: string; charges: number; paid: number; collection_paid: number }[],
  }));
  const twiceCharged = stores.collections.filter((c) => c.paid > 1 || c.charges > 1 || c.collection_paid > 1);
  const feed = feedAgainstEvents(dataDir);
  report(
    `[idempotency crash] requests ${REQUESTS} (${CONCURRENCY} in flight), SIGKILL after ${burst.sent} sent: ${burst.answered.size} answered 200 before the kill, ${interrupted} created but unanswered;` +
      ` after the restart ${calls} calls for ${REQUESTS} keys; subscription.created ${created}, duplicates ${created - REQUESTS}, keys seen twice ${stores.keysTwice};` +
      ` collections ${stores.collections.length}, with two charges or two successful charges ${twiceCharged.length};` +
      ` feed: ${feed.entries} entries for ${feed.eligible} events, missing ${feed.missing.length}, strays ${feed.strays.length}, duplicates ${feed.duplicates}`,
  );
  expect(created).toBe(REQUESTS);
  expect(stores.keysTwice).toBe(0);
  expect(stores.collections.length).toBe(REQUESTS);
  expect(twiceCharged).toEqual([]);
  expect(stores.collections.every((c) => c.paid === 1 && c.collection_paid === 1)).toBe(true);
  expect(feed.missing).toEqual([]);
  expect(feed.strays).toEqual([]);
  expect(feed.duplicates).toBe(0);
  expect(feed.entries).toBe(feed.eligible);
});
