import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { jest } from '@jest/globals';
import { Scheduler } from '#scheduling/scheduler.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { DeadlineActions } from '#scheduling/deadline-actions.js';

let t: TestApp;
let key: string;
let liveKey: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account();
  key = account.test_key;
  liveKey = account.live_key;
  otherKey = (await t.account('Other merchant')).test_key;
});
afterAll(() => t.close());

const BASE = '/v1/test_helpers/test_clocks';
const T0 = '2026-01-15T12:00:00.000Z';
let n = 0;
const email = () => `clock.${++n}.${Date.now()}@example.com`;

async function newClock(frozen_time = T0, name?: string) {
  const res = await t.as(key).post(BASE, name === undefined ? { frozen_time } : { frozen_time, name });
  expect(res.status).toBe(200);
  return res.body;
}

describe('the clock itself', () => {
  test('create answers the clock, ready at its frozen time; GET answers the same', async () => {
    const res = await t.as(key).post(BASE, { frozen_time: '2026-01-15T12:00:00Z', name: ' Renewals ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^clock_[0-9A-Za-z]{24}$/),
      object: 'test_clock',
      name: 'Renewals',
      frozen_time: T0,
      status: 'ready',
      created_date: '2026-11-23 10:00:00',
      is_test: true,
    });
    const got = await t.as(key).get(`${BASE}/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('name is optional; frozen_time is required and must be a timestamp', async () => {
    expect((await newClock()).name).toBeNull();
    const missing = await t.as(key).post(BASE, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_missing', param: 'frozen_time' });
    expect((await t.as(key).post(BASE, { frozen_time: 'tomorrow' })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'frozen_time' });
    expect((await t.as(key).post(BASE, { frozen_time: 1768478400 })).body.error).toMatchObject({ param: 'frozen_time' });
    expect((await t.as(key).post(BASE, { frozen_time: T0, colour: 'red' })).body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  test("list: newest first, paginated, only the caller's", async () => {
    // Lists sort by creation time: let the service's clock move between the two, then put it back.
    const start = t.clock.now();
    t.clock.advanceMs(1000);
    const a = await newClock(T0, 'list a');
    t.clock.advanceMs(1000);
    const b = await newClock(T0, 'list b');
    t.clock.set(start);
    const page = await t.as(key).get(`${BASE}?limit=2`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ object: 'list', url: BASE, has_more: true });
    expect(page.body.data.map((c: { id: string }) => c.id)).toEqual([b.id, a.id]);
    const other = await t.as(otherKey).get(BASE);
    expect(other.body.data).toEqual([]);
    expect((await t.as(otherKey).get(`${BASE}/${a.id}`)).status).toBe(404);
  });

  test('advancing a clock with no deadlines moves frozen_time and answers it ready', async () => {
    const clock = await newClock();
    const res = await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-02-01T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...clock, frozen_time: '2026-02-01T00:00:00.000Z', status: 'ready' });
    expect((await t.as(key).get(`${BASE}/${clock.id}`)).body).toEqual(res.body);
  });

  test('advancing to the current frozen time or before is 400; a missing target too; an unknown clock is 404', async () => {
    const clock = await newClock();
    for (const frozen_time of [T0, '2026-01-01T00:00:00Z']) {
      const res = await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid', param: 'frozen_time' });
    }
    expect((await t.as(key).post(`${BASE}/${clock.id}/advance`, {})).body.error).toMatchObject({ code: 'parameter_missing', param: 'frozen_time' });
    expect((await t.as(key).get(`${BASE}/${clock.id}`)).body).toEqual(clock);
    const unknown = await t.as(key).post(`${BASE}/clock_nope/advance`, { frozen_time: '2027-01-01T00:00:00Z' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing' });
  });

  test('a failed run leaves the clock advancing; an earlier target is then 409, the same target resumes', async () => {
    const scheduler = t.app.get(Scheduler);
    const runDue = scheduler.runDue;
    const clock = await newClock();
    scheduler.runDue = async () => {
      throw new Error('scheduler down');
    };
    try {
      expect((await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-03-01T00:00:00Z' })).status).toBe(500);
    } finally {
      scheduler.runDue = runDue;
    }
    // The service logged the failure it answered 500 for (kept by the test logger, not printed).
    expect(await t.logs.expectError(/unhandled error .*scheduler down/)).toHaveLength(1);
    // The 500 answered without waiting for the read model (the error left the request before its
    // read-your-writes wait); the clock's `advancing` shows there once the projection commits it.
    let seen = (await t.as(key).get(`${BASE}/${clock.id}`)).body;
    for (let i = 0; i < 100 && seen.status !== 'advancing'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = (await t.as(key).get(`${BASE}/${clock.id}`)).body;
    }
    expect(seen).toMatchObject({ status: 'advancing', frozen_time: T0 });
    const earlier = await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-02-01T00:00:00Z' });
    expect(earlier.status).toBe(409);
    expect(earlier.body.error).toMatchObject({ code: 'invalid_state', param: 'frozen_time' });
    const resumed = await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-03-01T00:00:00Z' });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'ready', frozen_time: '2026-03-01T00:00:00.000Z' });
  });

  test('while this process advances a clock, another advance or a delete of it is 409', async () => {
    const scheduler = t.app.get(Scheduler);
    const runDue = scheduler.runDue;
    const clock = await newClock();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const started = new Promise<void>((r) => (entered = r));
    scheduler.runDue = async () => {
      entered();
      await gate;
      return { ran: 0, position: null };
    };
    try {
      const first = t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-02-01T00:00:00Z' }).then((r) => r);
      await started;
      const second = await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-03-01T00:00:00Z' });
      expect(second.status).toBe(409);
      expect(second.body.error).toMatchObject({ code: 'invalid_state' });
      expect((await t.as(key).delete(`${BASE}/${clock.id}`)).status).toBe(409);
      release();
      expect((await first).body).toMatchObject({ status: 'ready', frozen_time: '2026-02-01T00:00:00.000Z' });
    } finally {
      scheduler.runDue = runDue;
    }
  });

  test('delete: answers deleted, then the clock is gone (GET, list, advance, delete again: 404)', async () => {
    const clock = await newClock(T0, 'to delete');
    const res = await t.as(key).delete(`${BASE}/${clock.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: clock.id, object: 'test_clock', deleted: true });
    expect((await t.as(key).get(`${BASE}/${clock.id}`)).status).toBe(404);
    expect((await t.as(key).get(`${BASE}?limit=100`)).body.data.map((c: { id: string }) => c.id)).not.toContain(clock.id);
    expect((await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2027-01-01T00:00:00Z' })).status).toBe(404);
    expect((await t.as(key).delete(`${BASE}/${clock.id}`)).status).toBe(404);
    const customer = await t.as(key).post('/v1/customers', { email: email(), test_clock: clock.id });
    expect(customer.status).toBe(404);
    expect(customer.body.error).toMatchObject({ code: 'resource_missing', param: 'test_clock' });
  });

  test('the feed has the test_clock.* events with the clock as data.object', async () => {
    const clock = await newClock(T0, 'feed');
    await t.as(key).post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-01-16T00:00:00Z' });
    const feed = await t.as(key).get(`/v1/events?object_id=${clock.id}`);
    expect(feed.status).toBe(200);
    expect(feed.body.data.map((e: { type: string }) => e.type)).toEqual(['test_clock.created', 'test_clock.advancing', 'test_clock.ready']);
    expect(feed.body.data[1].data.object).toMatchObject({ id: clock.id, object: 'test_clock', status: 'advancing', frozen_time: T0 });
    expect(feed.body.data[2].data.object).toMatchObject({ id: clock.id, object: 'test_clock', status: 'ready', frozen_time: '2026-01-16T00:00:00.000Z' });
  });

  test('the OpenAPI page documents every endpoint', async () => {
    const doc = (await t.http().get('/openapi.json')).body;
    expect(Object.keys(doc.paths[BASE])).toEqual(expect.arrayContaining(['get', 'post']));
    expect(Object.keys(doc.paths[`${BASE}/{id}`])).toEqual(expect.arrayContaining(['get', 'delete']));
    expect(Object.keys(doc.paths[`${BASE}/{id}/advance`])).toEqual(['post']);
    expect(doc.paths[BASE].post.tags).toEqual(['test clocks']);
    expect(doc.paths['/v1/customers'].post.requestBody.content['application/json'].schema.$ref).toBeDefined();
  });
});

describe('live keys can neither see nor use clocks', () => {
  test('every endpoint is 403 test_mode_only for a live key, whatever the body', async () => {
    const clock = await newClock();
    const live = t.as(liveKey);
    for (const res of [
      await live.post(BASE, { frozen_time: T0 }),
      await live.post(BASE, { nonsense: true }),
      await live.get(BASE),
      await live.get(`${BASE}/${clock.id}`),
      await live.post(`${BASE}/${clock.id}/advance`, { frozen_time: '2027-01-01T00:00:00Z' }),
      await live.delete(`${BASE}/${clock.id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: { type: 'invalid_request_error', code: 'test_mode_only', message: 'Test clocks are only available with a test key', param: null },
      });
    }
    expect((await t.as(key).get(`${BASE}/${clock.id}`)).body).toEqual(clock);
  });

  test('a live customer cannot be put on a clock (400), and writes nothing', async () => {
    const clock = await newClock();
    const address = email();
    const res = await t.as(liveKey).post('/v1/customers', { email: address, test_clock: clock.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'test_clock', message: 'Test clocks are only available with a test key' });
    expect((await t.as(liveKey).post('/v1/customers', { email: address })).status).toBe(200);
  });
});

describe('customers on a clock', () => {
  test('a customer on a clock is created at its frozen time and reads back its test_clock; others have null', async () => {
    const clock = await newClock();
    const res = await t.as(key).post('/v1/customers', { email: email(), name: 'Ana', test_clock: clock.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'customer', test_clock: clock.id, created_date: '2026-01-15 12:00:00', is_test: true });
    expect((await t.as(key).get(`/v1/customers/${res.body.id}`)).body).toEqual(res.body);
    const plain = await t.as(key).post('/v1/customers', { email: email() });
    expect(plain.body).toMatchObject({ test_clock: null, created_date: '2026-11-23 10:00:00' });
    const nullClock = await t.as(key).post('/v1/customers', { email: email(), test_clock: null });
    expect(nullClock.body.test_clock).toBeNull();
  });

  test("another account's clock or an unknown one is 404 naming test_clock, and the email stays free", async () => {
    const clock = await newClock();
    const address = email();
    const other = await t.as(otherKey).post('/v1/customers', { email: address, test_clock: clock.id });
    expect(other.status).toBe(404);
    expect(other.body.error).toMatchObject({ code: 'resource_missing', param: 'test_clock' });
    expect((await t.as(key).post('/v1/customers', { email: address, test_clock: 'clock_unknown' })).body.error).toMatchObject({ param: 'test_clock' });
    expect((await t.as(key).post('/v1/customers', { email: address })).status).toBe(200);
  });

  test('the clock is set at creation only: an update cannot send it', async () => {
    const clock = await newClock();
    const customer = (await t.as(key).post('/v1/customers', { email: email(), test_clock: clock.id })).body;
    const res = await t.as(key).post(`/v1/customers/${customer.id}/update`, { test_clock: null });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: 'test_clock' });
    expect((await t.as(key).get(`/v1/customers/${customer.id}`)).body.test_clock).toBe(clock.id);
  });
});

describe('subscriptions and collections on a clock', () => {
  test("a subscription for a customer on a clock lives on it: created and current_period_start at the clock's time, renewal a month on", async () => {
    const api = t.as(key);
    const setup = await billingSetup(api);
    const clock = await newClock();
    const customer = (await api.post('/v1/customers', { email: email(), test_clock: clock.id })).body;
    const res = await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: setup.monthly.id }], payment_information: card() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'active',
      test_clock: clock.id,
      created_date: '2026-01-15 12:00:00',
      current_period_start: T0,
      next_renewal_date: '2026-02-15T12:00:00.000Z',
    });
    const collection = (await api.get(`/v1/collections/${res.body.latest_collection}`)).body;
    expect(collection).toMatchObject({ status: 'paid', test_clock: clock.id, created_date: '2026-01-15 12:00:00' });
  });

  test('operations on a subscription on a clock are decided at its time (pause)', async () => {
    const api = t.as(key);
    const setup = await billingSetup(api);
    const clock = await newClock();
    const customer = (await api.post('/v1/customers', { email: email(), test_clock: clock.id })).body;
    const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: setup.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
    const pause = await api.post(`/v1/subscriptions/${sub.id}/pause`, {});
    expect(pause.status).toBe(200);
    expect(pause.body).toMatchObject({ status: 'paused', paused_at: T0 });
  });

  test('a standalone collection for a customer on a clock is created at its time and carries the clock', async () => {
    const api = t.as(key);
    const setup = await billingSetup(api);
    const clock = await newClock();
    const customer = (await api.post('/v1/customers', { email: email(), test_clock: clock.id })).body;
    const res = await api.post('/v1/collections', { customer: customer.id, items: [{ price: setup.setupFee.id }], days_until_due: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ test_clock: clock.id, created_date: '2026-01-15 12:00:00', due_date: '2026-01-21T04:59:59.999Z' });
  });

  test("advancing past the renewal renews the subscription at the renewal's own time", async () => {
    const api = t.as(key);
    const setup = await billingSetup(api);
    const clock = await newClock();
    const customer = (await api.post('/v1/customers', { email: email(), test_clock: clock.id })).body;
    const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: setup.monthly.id }], payment_information: card() })).body;
    const res = await api.post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-02-16T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', frozen_time: '2026-02-16T00:00:00.000Z' });
    const after = (await api.get(`/v1/subscriptions/${sub.id}`)).body;
    expect(after).toMatchObject({ status: 'active', current_period_start: '2026-02-15T12:00:00.000Z', next_renewal_date: '2026-03-15T12:00:00.000Z' });
    expect(after.latest_collection).not.toBe(sub.latest_collection);
    const renewal = (await api.get(`/v1/collections/${after.latest_collection}`)).body;
    expect(renewal).toMatchObject({ status: 'paid', billing_reason: 'subscription_cycle', created_date: '2026-02-15 12:00:00', test_clock: clock.id });
  });

  test('an advance whose wait for the projections times out waits again for the same position, and renews every period once', async () => {
    const api = t.as(key);
    const setup = await billingSetup(api);
    const clock = await newClock();
    const customer = (await api.post('/v1/customers', { email: email(), test_clock: clock.id })).body;
    const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: setup.monthly.id }], payment_information: card() })).body;
    const engine = t.app.get(ProjectionEngine);
    const waitFor = engine.waitFor.bind(engine);
    /** The positions the clock's run waited for (the scheduler's own waits, not a request's read-your-writes). */
    const positions: (string | null)[] = [];
    // The run's first wait for each position times out, as after 10 s of a projection backlog; a
    // query after a wait given up on could read the renewed subscription stale (still due).
    const waits = jest.spyOn(engine, 'waitFor').mockImplementation(async (position, timeoutMs) => {
      if (/at Scheduler\.(runDue|projected) /.test(new Error().stack ?? '')) {
        const first = !positions.includes(position);
        positions.push(position);
        if (first) return false;
      }
      return waitFor(position, timeoutMs);
    });
    const actions = t.app.get(DeadlineActions);
    const ran = [jest.spyOn(actions, 'subscription'), jest.spyOn(actions, 'collection')];
    try {
      const res = await api.post(`${BASE}/${clock.id}/advance`, { frozen_time: '2026-04-16T00:00:00Z' });
      expect(res.status).toBe(200);
      // Three renewals, each run once: none run again on a stale document read after a wait given up on.
      expect(ran.map((r) => r.mock.calls.length)).toEqual([3, 0]);
    } finally {
      waits.mockRestore();
      for (const r of ran) r.mockRestore();
    }
    // One wait after each deadline the run ran (three renewals at least), each timed out once and
    // waited again at once for the same position.
    const distinct = [...new Set(positions)];
    expect(distinct.length).toBeGreaterThanOrEqual(3);
    expect(positions).toEqual(distinct.flatMap((p) => [p, p]));
    const after = (await api.get(`/v1/subscriptions/${sub.id}`)).body;
    expect(after).toMatchObject({ status: 'active', current_period_start: '2026-04-15T12:00:00.000Z', next_renewal_date: '2026-05-15T12:00:00.000Z', collections_count: 4 });
  });
});
