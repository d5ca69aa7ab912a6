import { startTestApp, type TestApp } from '../support/test-app.js';
import { CONFIG } from '#platform/tokens.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { history } from '../support/subscription-helpers.js';
import { advance, clockAndCustomer, collectionsOf, count, getCol, getSub, historyTypes } from '../support/lifecycle.js';

/**
 * Issue 8: a `charge` renewal whose payment cannot even be attempted (the saved method deleted, none
 * at all) is a failed attempt at the renewal's own time: past due, dunning on the account's policy
 * (each retry fails again at its time), uncollectible/unpaid; a new method brings it back.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const RENEWAL = '2026-02-28T10:00:00.000Z';

/** A monthly charge subscription paid with an approving card, whose saved method is then deleted. */
async function subscriptionWithoutMethod() {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub).toMatchObject({ status: 'active', payment_method: expect.stringMatching(/^pm_/) });
  const deleted = await api().post(`/v1/payment_methods/${sub.payment_method}/delete`, {});
  expect(deleted.status).toBe(200);
  return { s, clock, customer, sub };
}

/** `created` of each feed event of the subscription's history, by type, in order. */
async function timeline(id: string) {
  return (await history(api(), id, 100)).map((e) => `${e.type}@${e.created}`);
}

test('deleted method: the renewal is a failed attempt at its time (payment_method_missing), dunning to unpaid, a new method brings it back to active', async () => {
  const { clock, customer, sub } = await subscriptionWithoutMethod();
  await advance(api(), clock.id, '2026-04-01T00:00:00.000Z');

  const cols = await collectionsOf(api(), sub.id);
  expect(cols).toHaveLength(2);
  const renewal = cols[1];
  expect(renewal).toMatchObject({
    status: 'uncollectible',
    billing_reason: 'subscription_cycle',
    due_date: RENEWAL,
    created_date: '2026-02-28 10:00:00',
    collection_attempts: 4,
  });
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'unpaid', next_renewal_date: '2026-03-31T10:00:00.000Z' });

  const types = await historyTypes(api(), sub.id);
  expect(count(types, 'subscription.renewed')).toBe(1);
  expect(count(types, 'collection.payment_failed')).toBe(4);
  expect(count(types, 'collection.past_due')).toBe(1);
  expect(count(types, 'subscription.past_due')).toBe(1);
  expect(count(types, 'collection.uncollectible')).toBe(1);
  expect(count(types, 'subscription.unpaid')).toBe(1);
  // Nothing reached a gateway: no transaction, no charge after the first (paid) collection.
  expect(types.slice(types.indexOf('subscription.renewed')).filter((x) => x.startsWith('charge.') || x.startsWith('transaction.'))).toEqual([]);

  const feed = (await api().get(`/v1/events?object_id=${renewal.id}&limit=100`)).body.data as any[];
  const failures = feed.filter((e) => e.type === 'collection.payment_failed');
  expect(failures.map((e) => e.created)).toEqual([
    RENEWAL,
    '2026-03-01T10:00:00.000Z',
    '2026-03-03T10:00:00.000Z',
    '2026-03-05T10:00:00.000Z',
  ]);
  for (const f of failures) {
    expect(f.data.object.last_payment_error).toMatchObject({ code: 'payment_method_missing', decline_code: null, charge: null });
  }
  expect(failures.map((f) => f.data.object.collection_attempts)).toEqual([1, 2, 3, 4]);
  expect(feed.filter((e) => e.type === 'collection.reminder').map((e) => e.created)).toEqual(['2026-03-01T10:00:00.000Z', '2026-03-03T10:00:00.000Z', '2026-03-05T10:00:00.000Z']);
  const stamped = await timeline(sub.id);
  expect(stamped).toEqual(expect.arrayContaining([
    `subscription.renewed@${RENEWAL}`,
    `collection.past_due@${RENEWAL}`,
    `subscription.past_due@${RENEWAL}`,
    'collection.uncollectible@2026-03-07T10:00:00.000Z',
    'subscription.unpaid@2026-03-07T10:00:00.000Z',
  ]));

  // A new card for the customer, set on the subscription, then the overdue collection paid: active again.
  const pay = await api().post(`/v1/collections/${renewal.id}/pay`, { payment_information: card() });
  expect(pay.status).toBe(200);
  expect(pay.body).toMatchObject({ status: 'paid', paid_date: '2026-04-01T00:00:00.000Z' });
  const back = await getSub(api(), sub.id);
  expect(back.status).toBe('active');
  expect(customer.id).toBeTruthy();
});

test('a new default card during dunning: the next retry charges it at its time and the subscription is active again', async () => {
  const { clock, customer, sub } = await subscriptionWithoutMethod();
  await advance(api(), clock.id, '2026-02-28T12:00:00.000Z');
  const renewal = (await getSub(api(), sub.id)).latest_collection;
  expect(await getCol(api(), renewal)).toMatchObject({ status: 'past_due', collection_attempts: 1, last_payment_error: { code: 'payment_method_missing' } });
  expect((await getSub(api(), sub.id)).status).toBe('past_due');

  const added = await api().post('/v1/payment_methods/migrate', {
    customer: customer.id,
    gateway: 'gateway_a',
    type: 'card',
    token: `simtok_approve_new${Math.random().toString(36).slice(2, 8)}`,
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    default: true,
  });
  expect(added.status).toBe(200);
  await advance(api(), clock.id, '2026-03-02T00:00:00.000Z');
  expect(await getCol(api(), renewal)).toMatchObject({ status: 'paid', collection_attempts: 2, paid_date: '2026-03-01T10:00:00.000Z', payment_method: added.body.id, last_payment_error: null });
  expect((await getSub(api(), sub.id)).status).toBe('active');
  // And the next renewal charges it normally.
  await advance(api(), clock.id, '2026-03-31T10:00:00.000Z');
  expect((await collectionsOf(api(), sub.id)).map((c) => c.status)).toEqual(['paid', 'paid', 'paid']);
});

const DAY = 86_400_000;
const plusDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString();
const RENEWALS = ['2026-02-28T10:00:00.000Z', '2026-03-31T10:00:00.000Z', '2026-04-30T10:00:00.000Z', '2026-05-31T10:00:00.000Z', '2026-06-30T10:00:00.000Z', '2026-07-31T10:00:00.000Z'];
const SIX_MONTHS = '2026-07-31T12:00:00.000Z';

/**
 * What six months alone must leave, with a policy whose final day (45) comes after the next renewal:
 * every renewal at its date (a past_due subscription is still renewed), each collection failing at
 * its due date and at each retry, uncollectible at due + 45 days — except the two latest, still in dunning.
 */
function expectSixMonths(cols: any[], timeline: string[]) {
  expect(cols).toHaveLength(7);
  const renewals = cols.slice(1);
  expect(renewals.map((c) => c.due_date)).toEqual(RENEWALS);
  expect(renewals.map((c) => c.created_date)).toEqual(RENEWALS.map((r) => r.slice(0, 19).replace('T', ' ')));
  expect(renewals.map((c) => c.status)).toEqual(['uncollectible', 'uncollectible', 'uncollectible', 'uncollectible', 'past_due', 'past_due']);
  expect(renewals.map((c) => c.collection_attempts)).toEqual([4, 4, 4, 4, 4, 1]);
  for (const due of RENEWALS) {
    expect(timeline).toContain(`subscription.renewed@${due}`);
    expect(timeline).toContain(`collection.past_due@${due}`);
    for (const d of [0, 1, 3, 5]) if (plusDays(due, d) <= SIX_MONTHS) expect(timeline).toContain(`collection.payment_failed@${plusDays(due, d)}`);
    if (plusDays(due, 45) <= SIX_MONTHS) expect(timeline).toContain(`collection.uncollectible@${plusDays(due, 45)}`);
  }
  expect(timeline.filter((x) => x.startsWith('collection.payment_failed@'))).toHaveLength(21);
  expect(timeline.filter((x) => x.startsWith('collection.reminder@'))).toHaveLength(15);
  expect(timeline.filter((x) => x.startsWith('subscription.past_due@'))).toEqual([`subscription.past_due@${RENEWALS[0]}`]);
  expect(timeline.filter((x) => x.startsWith('subscription.unpaid@'))).toEqual([]);
  // Time never runs backwards in the history.
  const times = timeline.map((x) => x.slice(x.indexOf('@') + 1));
  expect([...times].sort()).toEqual(times);
}

async function longPolicyAccount() {
  const other = t.as((await t.account('Long dunning')).test_key);
  expect((await other.post('/v1/account/retry_policy', { retry_days: [1, 3, 5], final_days: 45 })).status).toBe(200);
  return other;
}

test('six months alone with no method: every renewal written at its time, dunning for each (one advance, and forty uneven steps alike)', async () => {
  const other = await longPolicyAccount();
  const run = async (steps: string[]) => {
    const s = await billingSetup(other);
    const { clock, customer } = await clockAndCustomer(other, START);
    const sub = (await other.post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
    expect((await other.post(`/v1/payment_methods/${sub.payment_method}/delete`, {})).status).toBe(200);
    for (const at of steps) await advance(other, clock.id, at);
    const timeline = (await history(other, sub.id, 100)).map((e) => `${e.type}@${e.created}`);
    const cols = await collectionsOf(other, sub.id);
    expect(await getSub(other, sub.id)).toMatchObject({ status: 'past_due', next_renewal_date: '2026-08-31T10:00:00.000Z', collections_count: 7 });
    return { timeline, cols: cols.map(({ id, customer: _c, subscription: _s, checkout_url: _u, items: _i, ...rest }) => rest) };
  };
  const one = await run([SIX_MONTHS]);
  expectSixMonths(one.cols, one.timeline);
  // Forty steps of uneven sizes (some land exactly on deadlines, most do not).
  const steps: string[] = [];
  let at = Date.parse(START);
  for (let i = 1; steps.length < 39; i++) {
    at += ((i * 7919) % 97) * 3_600_000 + ((i * 31) % 60) * 60_000 + 1;
    if (at < Date.parse(SIX_MONTHS)) steps.push(new Date(at).toISOString());
    else break;
  }
  const forty = await run([...steps, SIX_MONTHS]);
  expect(forty.timeline).toEqual(one.timeline);
  expect(forty.cols.map(({ created: _c, ...c }) => c).length).toBe(7);
  expect(forty.cols.map((c) => [c.status, c.collection_attempts, c.created_date, c.due_date, c.next_collection_attempt_date, c.last_payment_error?.code])).toEqual(
    one.cols.map((c) => [c.status, c.collection_attempts, c.created_date, c.due_date, c.next_collection_attempt_date, c.last_payment_error?.code]),
  );
});

test('the other renewals that cannot be attempted: an expired card, a gateway removed from the account — each a failed attempt with its reason (after the customer default, when it can be charged)', async () => {
  const other = t.as((await t.account('Other reasons')).test_key);
  const s = await billingSetup(other);
  const { clock, customer } = await clockAndCustomer(other, START);
  const migrate = async (gateway: string, exp_month: number, exp_year: number) => {
    const res = await other.post('/v1/payment_methods/migrate', {
      customer: customer.id,
      gateway,
      type: 'card',
      token: `simtok_approve_${gateway.replace('_', '')}${Math.random().toString(36).slice(2, 8)}`,
      card: { brand: 'visa', last4: '4242', exp_month, exp_year },
    });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  // Valid through February 2026: paid at creation (Jan 31) and at the Feb 28 renewal, expired at Mar 31.
  const expiring = await migrate('gateway_a', 2, 2026);
  expect((await other.post('/v1/account/gateways', { gateway: 'gateway_b' })).status).toBe(200);
  const onB = await migrate('gateway_b', 12, 2030);
  const subA = (await other.post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_method: expiring })).body;
  const subB = (await other.post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_method: onB })).body;
  expect([subA.status, subB.status]).toEqual(['active', 'active']);
  expect((await other.delete('/v1/account/gateways/gateway_b')).status).toBe(200);

  await advance(other, clock.id, '2026-03-31T11:00:00.000Z');
  const [a, b] = [await collectionsOf(other, subA.id), await collectionsOf(other, subB.id)];
  expect(a.map((c) => c.status)).toEqual(['paid', 'paid', 'past_due']);
  expect(a[2]).toMatchObject({ collection_attempts: 1, due_date: '2026-03-31T10:00:00.000Z', last_payment_error: { code: 'expired_card' } });
  // B's own method lost its gateway: the Feb 28 renewal charged the customer's default (the card still
  // valid then); at Mar 31 neither can be charged and the first reason (B's own method) is recorded.
  expect(b.map((c) => c.status)).toEqual(['paid', 'paid', 'past_due']);
  expect(b[1]).toMatchObject({ payment_method: expiring, paid_date: RENEWAL });
  expect(b[2]).toMatchObject({ collection_attempts: 1, last_payment_error: { code: 'gateway_not_configured' } });
  expect((await getSub(other, subA.id)).status).toBe('past_due');
  expect((await getSub(other, subB.id)).status).toBe('past_due');
});

test('the live scheduler (no clock, a 10 ms poll) does the same six months at its times', async () => {
  const live = await startTestApp({ scheduler: true, now: new Date(START) });
  try {
    live.app.get<{ scheduler: { pollMs: number } }>(CONFIG).scheduler.pollMs = 10;
    // Count the worker's runs, to wait for one that started after each move of the clock.
    const scheduler = live.app.get(Scheduler);
    const runDue = scheduler.runDue.bind(scheduler);
    let started = 0;
    let completed = 0;
    scheduler.runDue = async (scope, until) => {
      const n = ++started;
      try {
        return await runDue(scope, until);
      } finally {
        completed = Math.max(completed, n);
      }
    };
    const settle = async () => {
      const after = started;
      while (completed <= after) await new Promise((r) => setTimeout(r, 5));
    };
    const client = live.as((await live.account('Live dunning')).test_key);
    expect((await client.post('/v1/account/retry_policy', { retry_days: [1, 3, 5], final_days: 45 })).status).toBe(200);
    const s = await billingSetup(client);
    const sub = (await client.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
    expect(sub).toMatchObject({ status: 'active', test_clock: null });
    expect((await client.post(`/v1/payment_methods/${sub.payment_method}/delete`, {})).status).toBe(200);
    // Real time passes a day at a time (every deadline of this subscription falls on a day's 10:00).
    for (let at = Date.parse(START) + DAY; at <= Date.parse(SIX_MONTHS); at += DAY) {
      live.clock.set(new Date(at));
      await settle();
    }
    live.clock.set(new Date(SIX_MONTHS));
    await settle();
    const timeline = (await history(client, sub.id, 100)).map((e) => `${e.type}@${e.created}`);
    expectSixMonths(await collectionsOf(client, sub.id), timeline);
    expect(await getSub(client, sub.id)).toMatchObject({ status: 'past_due', next_renewal_date: '2026-08-31T10:00:00.000Z', collections_count: 7 });
  } finally {
    await live.close();
  }
});
