import { jest } from '@jest/globals';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { DeadlineActions } from '#scheduling/deadline-actions.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { feed } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The real-time billing run streams its deadlines in pages (a keyset cursor, not a fresh query from
 * the front after each batch), lets the projections lag one page behind it (not a wait after each page),
 * and leaves no renewed state behind in the executor's memory.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ now: new Date('2026-03-01T09:00:00.000Z') });
});
afterAll(async () => {
  await t.close();
});

test('seven subscriptions due at once, pages of three, two at once: each renewed and charged once, one projection wait per pass, nothing remembered', async () => {
  const api = t.as((await t.account()).test_key);
  const s = await billingSetup(api);
  const subs: string[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
    expect(res.body.status).toBe('active');
    subs.push(res.body.id);
  }
  const scheduler = t.app.get(Scheduler);
  const executor = t.app.get(AggregateExecutor);
  scheduler.batchSize = 3;
  scheduler.concurrency = 2;
  // The cap on work in flight: never more than `concurrency` deadlines at once, and pages of `batchSize`.
  let inFlight = 0;
  let started = 0;
  let mostInFlight = 0;
  const actions = t.app.get(DeadlineActions);
  const runSubscription = actions.subscription.bind(actions);
  jest.spyOn(actions, 'subscription').mockImplementation(async (ctx, doc) => {
    mostInFlight = Math.max(mostInFlight, ++inFlight);
    started++;
    try {
      return await runSubscription(ctx, doc);
    } finally {
      inFlight--;
    }
  });
  const finds = jest.spyOn(t.app.get<ReadStore>(READ_STORE), 'find');
  const engine = t.app.get(ProjectionEngine);
  const waitFor = engine.waitFor.bind(engine);
  /** How many renewals had started when each wait for the projections began. */
  const waitedAfter: number[] = [];
  const waits = jest.spyOn(engine, 'waitFor').mockImplementation((position, timeoutMs) => {
    waitedAfter.push(started);
    return waitFor(position, timeoutMs);
  });
  const known = jest.spyOn(executor, 'forget');
  t.clock.set(new Date('2026-04-01T09:00:00.000Z'));
  const result = await t.runDue();

  // One pass ran the seven renewals in three pages: the projections were waited for before the third
  // page (for what the first appended: they lag one page behind the run, no more), and at the end of
  // the pass; then a second pass that found nothing. Not one wait per page.
  expect(result.ran).toBe(7);
  expect(waits).toHaveBeenCalledTimes(2);
  expect(waitedAfter).toEqual([6, 7]);
  expect(mostInFlight).toBe(2);
  const pageQueries = finds.mock.calls.filter(([collection]) => collection === 'subscriptions' || collection === 'collections');
  expect(pageQueries.length).toBeGreaterThan(0);
  // Pages of three; each pass starts with a probe of one document per source.
  for (const [, query] of pageQueries) expect([1, 3]).toContain(query?.limit);
  expect(pageQueries.filter(([, query]) => query?.limit === 3).length).toBeGreaterThan(0);
  // Every renewed subscription's state was forgotten once its deadline ran.
  const forgotten = new Set(known.mock.calls.flat());
  for (const id of subs) expect(forgotten.has(subscriptionStream(id))).toBe(true);

  const events = await feed(api);
  for (const id of subs) {
    const sub = (await api.get(`/v1/subscriptions/${id}`)).body;
    expect(sub).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-05-01T09:00:00.000Z' });
    expect(events.filter((e) => e.type === 'subscription.renewed' && e.data.object.id === id)).toHaveLength(1);
    const charges = (await api.get(`/v1/charges?collection=${sub.latest_collection}`)).body.data;
    expect(charges.map((c: { status: string }) => c.status)).toEqual(['succeeded']);
  }
  // Nothing is left due: a second run runs nothing.
  expect((await t.runDue()).ran).toBe(0);
}, 60_000);

test('a wait for the projections that times out is waited again, not skipped (the next page or pass must not read stale documents)', async () => {
  // The seven subscriptions of the test above renew next on 2026-05-01 (pages of three, two at once).
  jest.restoreAllMocks();
  const engine = t.app.get(ProjectionEngine);
  const waitFor = engine.waitFor.bind(engine);
  const positions: (string | null)[] = [];
  let timeouts = 1;
  const waits = jest.spyOn(engine, 'waitFor').mockImplementation(async (position, timeoutMs) => {
    positions.push(position);
    if (timeouts-- > 0) return false; // as after 10 s of a projection backlog
    return waitFor(position, timeoutMs);
  });
  t.clock.set(new Date('2026-05-01T09:00:00.000Z'));
  expect((await t.runDue()).ran).toBe(7);
  // Before the third page: a timed-out wait, then the same position again; then the end of the pass.
  expect(waits).toHaveBeenCalledTimes(3);
  expect(positions[1]).toBe(positions[0]);
  waits.mockRestore();
}, 60_000);

test('a poll with nothing due reads one document per deadline source (a probe), not a page of those due later', async () => {
  // The seven subscriptions above renew next on 2026-06-01: nothing is due on 2026-05-15.
  jest.restoreAllMocks();
  const scheduler = t.app.get(Scheduler);
  scheduler.batchSize = 1024;
  const store = t.app.get<ReadStore>(READ_STORE);
  const find = store.find.bind(store);
  const read: number[] = [];
  jest.spyOn(store, 'find').mockImplementation(async (collection, query) => {
    const docs = await find(collection, query);
    if (collection === 'subscriptions') read.push(docs.length);
    return docs;
  });
  t.clock.set(new Date('2026-05-15T09:00:00.000Z'));
  expect((await t.runDue()).ran).toBe(0);
  expect(read).toEqual([1]);
}, 60_000);
