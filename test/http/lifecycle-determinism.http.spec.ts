import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { CLOCKS, advance, clockAndCustomer, clockEmail, collectionsOf, decliningMethod, getSub, historyTypes, newClock } from '../support/lifecycle.js';

/**
 * Issue 4, §1 and §3: advancing a clock runs each deadline once, in time order, and the outcome does
 * not depend on how the clock got there (one advance, several, many small ones); clocks are
 * independent of each other and of real time; live keys can neither see nor use them.
 */
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

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const END = '2026-04-02T00:00:00.000Z';

/**
 * Four subscriptions on one clock, so one advance interleaves many deadlines: a charge renewing
 * monthly, a charge whose card declines (retries, unpaid), a collect one never paid (3-day due date,
 * reminders, unpaid) and a charge one with a duration of 2 (will_end, ended).
 */
async function scenario() {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const make = async (body: Record<string, unknown>) => {
    const res = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], ...body });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const renewing = await make({ payment_information: card() });
  const declining = await make({ payment_information: card() });
  const pm = await decliningMethod(api(), customer.id);
  expect((await api().post(`/v1/subscriptions/${declining}/update`, { payment_method: pm.id })).status).toBe(200);
  const collect = await make({ collection_method: 'collect', days_until_due: 3 });
  const ending = await make({ payment_information: card(), duration: 2 });
  return { clock, subs: [renewing, declining, collect, ending] };
}

/** What a scenario left: each subscription's history types, status, and its collections' statuses, attempts and creation times. */
async function outcome(subs: string[]) {
  return Promise.all(
    subs.map(async (id) => {
      const sub = await getSub(api(), id);
      const cols = await collectionsOf(api(), id);
      return {
        status: sub.status,
        next_renewal_date: sub.next_renewal_date,
        history: await historyTypes(api(), id),
        collections: cols.map((c) => ({ status: c.status, attempts: c.collection_attempts, created: c.created_date, next: c.next_collection_attempt_date })),
      };
    }),
  );
}

test('one big advance, two advances, and many small steps all give the same events and states', async () => {
  const big = await scenario();
  await advance(api(), big.clock.id, END);
  const expected = await outcome(big.subs);
  // A sanity check of what happened, so that "the same" means something.
  expect(expected.map((o) => o.status)).toEqual(['active', 'unpaid', 'unpaid', 'ended']);
  expect(expected[0].collections.map((c) => c.status)).toEqual(['paid', 'paid', 'paid']);
  expect(expected[1].collections.map((c) => ({ status: c.status, attempts: c.attempts }))).toEqual([
    { status: 'paid', attempts: 1 },
    { status: 'uncollectible', attempts: 4 },
  ]);
  expect(expected[2].collections.map((c) => ({ status: c.status, attempts: c.attempts }))).toEqual([{ status: 'uncollectible', attempts: 0 }]);
  expect(expected[2].history.filter((x) => x === 'collection.reminder')).toHaveLength(3);
  expect(expected[3].collections.map((c) => c.status)).toEqual(['paid', 'paid']);
  expect(expected[3].history.filter((x) => x.startsWith('subscription.')).slice(-3)).toEqual(['subscription.renewed', 'subscription.will_end', 'subscription.ended']);

  const two = await scenario();
  await advance(api(), two.clock.id, '2026-03-01T10:00:00.000Z');
  await advance(api(), two.clock.id, END);
  expect(await outcome(two.subs)).toEqual(expected);

  const small = await scenario();
  // Every 29 hours (never on a deadline's own hour), then the end.
  let at = Date.parse(START);
  while ((at += 29 * 3_600_000) < Date.parse(END)) await advance(api(), small.clock.id, new Date(at).toISOString());
  await advance(api(), small.clock.id, END);
  expect(await outcome(small.subs)).toEqual(expected);

  const exact = await scenario();
  // Landing exactly on each deadline (renewals, due dates, retries, final days).
  for (const d of [
    '2026-02-03T10:00:00.000Z',
    '2026-02-04T10:00:00.000Z',
    '2026-02-06T10:00:00.000Z',
    '2026-02-08T10:00:00.000Z',
    '2026-02-10T10:00:00.000Z',
    '2026-02-28T10:00:00.000Z',
    '2026-03-01T10:00:00.000Z',
    '2026-03-03T10:00:00.000Z',
    '2026-03-05T10:00:00.000Z',
    '2026-03-07T10:00:00.000Z',
    '2026-03-31T10:00:00.000Z',
    END,
  ]) {
    await advance(api(), exact.clock.id, d);
  }
  expect(await outcome(exact.subs)).toEqual(expected);
});

test('advancing again to the same time is refused and changes nothing; advancing a little further runs nothing twice', async () => {
  const { clock, subs } = await scenario();
  await advance(api(), clock.id, END);
  const before = await outcome(subs);
  const again = await api().post(`${CLOCKS}/${clock.id}/advance`, { frozen_time: END });
  expect(again.status).toBe(400);
  expect(again.body.error).toMatchObject({ code: 'parameter_invalid', param: 'frozen_time' });
  await advance(api(), clock.id, '2026-04-02T00:00:01.000Z');
  expect(await outcome(subs)).toEqual(before);
  const events = (await api().get(`/v1/events?object_id=${clock.id}&limit=100`)).body.data.map((e: { type: string }) => e.type);
  expect(events).toEqual(['test_clock.created', 'test_clock.advancing', 'test_clock.ready', 'test_clock.advancing', 'test_clock.ready']);
});

test('clocks are independent: advancing one moves nothing on another, and real time moves nothing on a clock', async () => {
  const a = await scenario();
  const b = await scenario();
  const untouched = await outcome(b.subs);
  await advance(api(), a.clock.id, END);
  expect(await outcome(b.subs)).toEqual(untouched);
  // The service's own scheduler (real time, far past the clock's renewals) leaves clocked objects alone.
  t.clock.set(new Date('2027-06-01T00:00:00.000Z'));
  try {
    await t.runDue();
  } finally {
    t.clock.set(new Date('2026-11-23T10:00:00.000Z'));
  }
  expect(await outcome(b.subs)).toEqual(untouched);
  expect((await api().get(`${CLOCKS}/${b.clock.id}`)).body).toMatchObject({ status: 'ready', frozen_time: START });
});

test('a renewal that became due while the clock stood still runs at the clock time, not in its past', async () => {
  // Unpaid subscriptions are not renewed; when the customer pays later, the missed renewal runs once,
  // at the next advance, at the time the clock stood at (as the live scheduler would at its next poll).
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  const approving = sub.payment_method;
  const pm = await decliningMethod(api(), customer.id);
  await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: pm.id });
  await advance(api(), clock.id, '2026-04-10T00:00:00.000Z');
  const unpaid = await getSub(api(), sub.id);
  expect(unpaid).toMatchObject({ status: 'unpaid', next_renewal_date: '2026-03-31T10:00:00.000Z' });
  expect(await collectionsOf(api(), sub.id)).toHaveLength(2);

  expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: approving })).status).toBe(200);
  const paid = await api().post(`/v1/collections/${unpaid.latest_collection}/pay`, {});
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'paid', paid_date: '2026-04-10T00:00:00.000Z' });
  expect((await getSub(api(), sub.id)).status).toBe('active');

  await advance(api(), clock.id, '2026-04-11T00:00:00.000Z');
  const cols = await collectionsOf(api(), sub.id);
  expect(cols).toHaveLength(3);
  // Never before the moment it could happen (the payment at the clock's 2026-04-10T00:00).
  expect(cols[2]).toMatchObject({ status: 'paid', created_date: '2026-04-10 00:00:00', paid_date: '2026-04-10T00:00:00.000Z' });
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active', current_period_start: '2026-03-31T10:00:00.000Z', next_renewal_date: '2026-04-30T10:00:00.000Z' });
});

describe('live keys can neither see nor use clocks', () => {
  test('a live key gets 403 on every clock endpoint, cannot see clocked objects, and cannot put a customer on a clock', async () => {
    const { clock, subs } = await scenario();
    const live = t.as(liveKey);
    for (const res of [
      await live.get(CLOCKS),
      await live.post(CLOCKS, { frozen_time: START }),
      await live.get(`${CLOCKS}/${clock.id}`),
      await live.post(`${CLOCKS}/${clock.id}/advance`, { frozen_time: END }),
      await live.delete(`${CLOCKS}/${clock.id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'test_mode_only' });
    }
    // Nothing moved.
    expect((await api().get(`${CLOCKS}/${clock.id}`)).body).toMatchObject({ status: 'ready', frozen_time: START });
    expect((await getSub(api(), subs[0])).collections_count).toBe(1);
    // Test objects on the clock are invisible to the live key.
    expect((await live.get(`/v1/subscriptions/${subs[0]}`)).status).toBe(404);
    const liveFeed = (await live.get(`/v1/events?object_id=${clock.id}`)).body;
    expect(liveFeed.data ?? []).toEqual([]);
    // And a live customer cannot live on a clock.
    const res = await live.post('/v1/customers', { email: clockEmail(), test_clock: clock.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'parameter_invalid', param: 'test_clock' });
  });

  test('a live key cannot advance a clock even with the right id: the clock stays where it was', async () => {
    const clock = await newClock(api(), START);
    const res = await t.as(liveKey).post(`${CLOCKS}/${clock.id}/advance`, { frozen_time: '2030-01-01T00:00:00Z' });
    expect(res.status).toBe(403);
    expect((await api().get(`${CLOCKS}/${clock.id}`)).body).toMatchObject({ status: 'ready', frozen_time: START });
  });
});
