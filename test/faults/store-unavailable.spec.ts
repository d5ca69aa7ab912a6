import { CommandBus } from '@nestjs/cqrs';
import { storedEventStore } from '#customers/personal-data/personal-data-event-store.js';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { report } from '../support/test-output.js';
import { headSeq, readModelSnapshot, snapshotDifferences } from './support/crash-harness.js';

/**
 * Issue 14, §3: a full disk or a read-only data directory. Writes fail with 503 `store_unavailable`
 * in the API's error shape, nothing is half-written (the event store's head and the read models stay
 * as they were), GETs keep answering, and the service recovers by itself when space or permissions
 * return — no restart.
 *
 * How the faults are made (the tests run as root, which ignores chmod, and mounting a small file
 * system would need more root tricks): on the stores' writing SQLite connections (their writer threads'), `PRAGMA query_only`
 * makes every write fail with SQLITE_READONLY (what a read-only data directory gives), and
 * `PRAGMA max_page_count` set to the file's current size makes writes fail with SQLITE_FULL once the
 * free space left in its pages is used (what a full disk gives). Both are undone the same way.
 */

/** The connection that writes: the store's writer thread's (SQLITE_WRITER=thread, the default) or its own. */
const dbOf = (store: unknown) => ({ pragma: (pragma: string) => (store as { writerPragma(p: string): Promise<unknown> }).writerPragma(pragma) });

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const expectStoreUnavailable = (res: { status: number; body: any; headers: Record<string, string> }) => {
  expect(res.status).toBe(503);
  expect(res.body.error).toMatchObject({ type: 'api_error', code: 'store_unavailable', param: null });
  expect(res.body.error.message).toMatch(/cannot record changes right now/);
  expect(res.headers['retry-after']).toBe('1');
};

test('read-only event store: every write is 503 store_unavailable, nothing is written, GETs answer; writes work again once it is writable, without a restart', async () => {
  t = await startTestApp({ embedded: true });
  const api = t.as((await t.account()).test_key);
  const { customer, monthly } = await billingSetup(api);
  const events = dbOf(storedEventStore(t.app.get(EVENT_STORE)));
  const head = headSeq(t.dataDir);
  const models = readModelSnapshot(t.dataDir);

  await events.pragma('query_only = 1');
  const subscription = { customer: customer.id, items: [{ price: monthly.id }], collection_method: 'charge', payment_information: card() };
  expectStoreUnavailable(await api.post('/v1/products', { name: 'While read-only' }));
  expectStoreUnavailable(await api.post('/v1/customers', { email: 'ro@example.com', name: 'RO' }));
  expectStoreUnavailable(await api.post('/v1/subscriptions', subscription, { 'Idempotency-Key': 'ro-1' }));
  expect((await api.get(`/v1/customers/${customer.id}`)).status).toBe(200);
  expect((await api.get('/v1/products')).status).toBe(200);
  expect((await t.http().get('/health')).body.status).toBe('ok');
  expect(headSeq(t.dataDir)).toBe(head);
  expect(snapshotDifferences(readModelSnapshot(t.dataDir), models)).toEqual([]);
  // Each refusal is logged once, with SQLite's reason (kept by the test logger, not printed).
  expect((await t.logs.expectError('store unavailable')).map((e) => e.text)).toEqual(Array(3).fill(expect.stringContaining('attempt to write a readonly database')));

  await events.pragma('query_only = 0');
  expect((await api.post('/v1/products', { name: 'Writable again' })).status).toBe(200);
  const created = await api.post('/v1/subscriptions', subscription, { 'Idempotency-Key': 'ro-1' });
  expect(created.status).toBe(200);
  expect(created.body.status).toBe('active');
  // The key refused with a 503 was not spent: the retry ran the request once.
  expect((await api.post('/v1/subscriptions', subscription, { 'Idempotency-Key': 'ro-1' })).body.id).toBe(created.body.id);
});

test('full event store (SQLITE_FULL): the write that finds the disk full is 503 and writes nothing, later ones too; space back → writes again, without a restart', async () => {
  t = await startTestApp({ embedded: true });
  const api = t.as((await t.account()).test_key);
  const { customer, monthly } = await billingSetup(api);
  const events = dbOf(storedEventStore(t.app.get(EVENT_STORE)));
  const pages = (await events.pragma('page_count')) as number;
  await events.pragma(`max_page_count = ${pages}`);

  // Fill what is left of the file's pages, one product at a time, until a write finds it full.
  let full: any = null;
  const accepted: string[] = [];
  for (let i = 0; i < 2000 && !full; i++) {
    const head = headSeq(t.dataDir);
    const res = await api.post('/v1/products', { name: `Filling ${i}` });
    if (res.status === 200) accepted.push(res.body.id);
    else {
      full = res;
      expect(headSeq(t.dataDir)).toBe(head);
    }
  }
  expect(full).not.toBeNull();
  expectStoreUnavailable(full);
  // An Idempotency-Key's claim is smaller than a product (and its audit-chain row): fill the room left
  // in the pages with claims too, until not even one fits (each such request is a 503 as well).
  let claims = 0;
  for (let i = 0; i < 500; i++, claims++) {
    const before = headSeq(t.dataDir);
    expectStoreUnavailable(await api.post('/v1/products', { name: `Claim ${i}` }, { 'Idempotency-Key': `fill-${i}` }));
    if (headSeq(t.dataDir) === before) break;
  }

  const head = headSeq(t.dataDir);
  const models = readModelSnapshot(t.dataDir);
  const subscription = { customer: customer.id, items: [{ price: monthly.id }], collection_method: 'charge', payment_information: card() };
  expectStoreUnavailable(await api.post('/v1/subscriptions', subscription, { 'Idempotency-Key': 'full-1' }));
  expectStoreUnavailable(await api.post('/v1/prices', { product_id: accepted[0], type: 'one_time', unit_price: '1000', currency: 'COP' }));
  expect((await api.get(`/v1/products/${accepted[accepted.length - 1]}`)).status).toBe(200);
  expect(headSeq(t.dataDir)).toBe(head);
  expect(snapshotDifferences(readModelSnapshot(t.dataDir), models)).toEqual([]);
  // Every product answered 200 is there; the refused ones are not.
  const listed = new Set<string>();
  for (let after: string | null = null; ; ) {
    const page: any = (await api.get(`/v1/products?limit=100${after ? `&starting_after=${after}` : ''}`)).body;
    for (const p of page.data) listed.add(p.id);
    if (!page.has_more) break;
    after = page.data[page.data.length - 1].id;
  }
  expect(accepted.every((id) => listed.has(id))).toBe(true);
  expect(listed.size).toBe(accepted.length + 1);
  // The three refusals (and the claims' that filled the last room) are logged, each with SQLite's reason.
  expect((await t.logs.expectError('store unavailable')).map((e) => e.text)).toEqual(Array(3 + claims + 1).fill(expect.stringContaining('database or disk is full')));
  // A claim written while its outcome could not be: said in the log (a retry with the key resumes it).
  if (t.logs.errors('could not record the outcome').length) expect((await t.logs.expectError('could not record the outcome')).length).toBeLessThanOrEqual(claims);

  await events.pragma('max_page_count = 1073741823');
  const created = await api.post('/v1/subscriptions', subscription, { 'Idempotency-Key': 'full-1' });
  expect(created.status).toBe(200);
  expect(created.body.status).toBe('active');
  report(`[store unavailable] event store full after ${accepted.length} product writes; refused writes: 3, head unchanged`);
});

test('read-only read models: the projections wait (never parked) and catch up once writable, without a restart', async () => {
  t = await startTestApp({ embedded: true });
  await t.account();
  const models = dbOf(t.app.get(READ_STORE));
  await models.pragma('query_only = 1');
  const created = await t.app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Written while read-only'));
  // Longer than the whole retry-then-park schedule (0.1 + 0.2 + 0.4 + 0.8 s).
  await new Promise((r) => setTimeout(r, 2500));
  const health = (await t.http().get('/health')).body;
  expect(health.status).toBe('ok');
  expect(health.projections.every((p: { parked: unknown }) => !p.parked)).toBe(true);
  await models.pragma('query_only = 0');
  expect(await t.app.get(ProjectionEngine).waitFor(created.position, 10_000)).toBe(true);
  expect((await t.as(created.test_key).get('/v1/products')).status).toBe(200);
  // Meanwhile a follower that found the read models read-only may have said it will retry: expected.
  t.logs.claim(/follower could not write its checkpoint; will retry .*readonly database/);
});
