import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf, count, decliningMethod, getCol, getSub, historyTypes } from '../support/lifecycle.js';

/**
 * Issue 4, §2–3: a renewal that cannot be collected, driven by a test clock: past due at the renewal,
 * retries (or reminders) on the account's dunning policy, then uncollectible/unpaid; and back to
 * active when the overdue collection is paid.
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

/** A monthly charge subscription on a clock, paid at creation with an approving card, whose method then starts declining. */
async function decliningSubscription(client = api()) {
  const s = await billingSetup(client);
  const { clock, customer } = await clockAndCustomer(client, START);
  const sub = (await client.post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub).toMatchObject({ status: 'active', test_clock: clock.id });
  const declining = await decliningMethod(client, customer.id);
  const updated = await client.post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id });
  expect(updated.status).toBe(200);
  expect(updated.body.payment_method).toBe(declining.id);
  return { clock, customer, sub, approving: sub.payment_method as string, declining: declining.id };
}

test('a declining card: past_due at the renewal, retries at due +1/+3/+5 days, then uncollectible and unpaid at due +7', async () => {
  const { clock, sub } = await decliningSubscription();
  expect(sub.payment_method).toMatch(/^pm_/);

  await advance(api(), clock.id, RENEWAL);
  let now = await getSub(api(), sub.id);
  expect(now).toMatchObject({ status: 'past_due', collections_count: 2, next_renewal_date: '2026-03-31T10:00:00.000Z' });
  const renewal = now.latest_collection;
  expect(renewal).not.toBe(sub.latest_collection);
  expect(await getCol(api(), renewal)).toMatchObject({
    status: 'past_due',
    total: '49900.00',
    billing_reason: 'subscription_cycle',
    due_date: RENEWAL,
    collection_attempts: 1,
    next_collection_attempt_date: '2026-03-01T10:00:00.000Z',
    created_date: '2026-02-28 10:00:00',
  });
  let types = await historyTypes(api(), sub.id);
  expect(types.slice(types.indexOf('subscription.renewed'))).toEqual(
    expect.arrayContaining(['collection.created', 'collection.payment_failed', 'collection.past_due', 'subscription.past_due']),
  );
  expect(types.indexOf('collection.payment_failed')).toBeLessThan(types.indexOf('collection.past_due'));
  expect(types.indexOf('collection.past_due')).toBeLessThan(types.indexOf('subscription.past_due'));

  // One second before each retry nothing happens; at it, one more attempt and the next date.
  for (const [day, attempts, next] of [
    ['2026-03-01T10:00:00.000Z', 2, '2026-03-03T10:00:00.000Z'],
    ['2026-03-03T10:00:00.000Z', 3, '2026-03-05T10:00:00.000Z'],
    ['2026-03-05T10:00:00.000Z', 4, '2026-03-07T10:00:00.000Z'],
  ] as const) {
    await advance(api(), clock.id, new Date(Date.parse(day) - 1000).toISOString());
    expect((await getCol(api(), renewal)).collection_attempts).toBe(attempts - 1);
    await advance(api(), clock.id, day);
    expect(await getCol(api(), renewal)).toMatchObject({ status: 'past_due', collection_attempts: attempts, next_collection_attempt_date: next });
    expect((await getSub(api(), sub.id)).status).toBe('past_due');
  }

  await advance(api(), clock.id, '2026-03-07T09:59:59.000Z');
  expect((await getCol(api(), renewal)).status).toBe('past_due');
  await advance(api(), clock.id, '2026-03-07T10:00:00.000Z');
  expect(await getCol(api(), renewal)).toMatchObject({ status: 'uncollectible', collection_attempts: 4, next_collection_attempt_date: null });
  now = await getSub(api(), sub.id);
  expect(now.status).toBe('unpaid');

  types = await historyTypes(api(), sub.id);
  expect(count(types, 'collection.payment_failed')).toBe(4);
  expect(count(types, 'collection.past_due')).toBe(1);
  expect(count(types, 'subscription.past_due')).toBe(1);
  expect(count(types, 'collection.uncollectible')).toBe(1);
  expect(count(types, 'subscription.unpaid')).toBe(1);
  expect(types.indexOf('collection.uncollectible')).toBeLessThan(types.indexOf('subscription.unpaid'));
  expect(types.indexOf('subscription.unpaid')).toBe(types.length - 1);

  // `unpaid` subscriptions are not renewed: the next renewal date passes without a collection.
  await advance(api(), clock.id, '2026-04-15T00:00:00.000Z');
  expect(await collectionsOf(api(), sub.id)).toHaveLength(2);
  expect((await getSub(api(), sub.id)).status).toBe('unpaid');
  expect(await historyTypes(api(), sub.id)).toEqual(types);
});

test('the same run in one advance gives the same events as step by step', async () => {
  const a = await decliningSubscription();
  await advance(api(), a.clock.id, '2026-03-08T00:00:00.000Z');
  expect((await getSub(api(), a.sub.id)).status).toBe('unpaid');
  const b = await decliningSubscription();
  for (const at of [RENEWAL, '2026-03-01T10:00:00.000Z', '2026-03-03T10:00:00.000Z', '2026-03-05T10:00:00.000Z', '2026-03-07T10:00:00.000Z', '2026-03-08T00:00:00.000Z']) {
    await advance(api(), b.clock.id, at);
  }
  expect(await historyTypes(api(), b.sub.id)).toEqual(await historyTypes(api(), a.sub.id));
  const [ca, cb] = [(await collectionsOf(api(), a.sub.id))[1], (await collectionsOf(api(), b.sub.id))[1]];
  expect({ status: cb.status, attempts: cb.collection_attempts }).toEqual({ status: ca.status, attempts: ca.collection_attempts });
});

test('paying the past_due collection brings the subscription back to active, and the retries stop', async () => {
  const { clock, sub } = await decliningSubscription();
  await advance(api(), clock.id, '2026-03-01T12:00:00.000Z');
  const past = await getSub(api(), sub.id);
  expect(past.status).toBe('past_due');
  const col = await getCol(api(), past.latest_collection);
  expect(col).toMatchObject({ status: 'past_due', collection_attempts: 2, next_collection_attempt_date: '2026-03-03T10:00:00.000Z' });

  const paid = await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() });
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'paid', paid_date: '2026-03-01T12:00:00.000Z', next_collection_attempt_date: null });
  expect((await getSub(api(), sub.id)).status).toBe('active');

  await advance(api(), clock.id, '2026-03-10T00:00:00.000Z');
  expect(await getCol(api(), col.id)).toMatchObject({ status: 'paid', collection_attempts: 3 });
  expect((await getSub(api(), sub.id)).status).toBe('active');
  const types = await historyTypes(api(), sub.id);
  expect(count(types, 'collection.uncollectible')).toBe(0);
  expect(count(types, 'subscription.unpaid')).toBe(0);
  expect(types.slice(types.lastIndexOf('collection.paid'))).toEqual(['collection.paid', 'subscription.updated']);
  const back = (await api().get(`/v1/events?object_id=${sub.id}&limit=100`)).body.data.at(-1);
  expect(back).toMatchObject({ type: 'subscription.updated', data: { object: { id: sub.id, status: 'active' } } });
});

test("a retry charges the subscription's current method: switching back to an approving card pays at the next retry", async () => {
  const { clock, sub, approving } = await decliningSubscription();
  await advance(api(), clock.id, RENEWAL);
  const renewal = (await getSub(api(), sub.id)).latest_collection;
  expect((await getCol(api(), renewal)).status).toBe('past_due');
  expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: approving })).status).toBe(200);
  await advance(api(), clock.id, '2026-03-01T10:00:00.000Z');
  expect(await getCol(api(), renewal)).toMatchObject({ status: 'paid', collection_attempts: 2, paid_date: '2026-03-01T10:00:00.000Z', payment_method: approving });
  expect((await getSub(api(), sub.id)).status).toBe('active');
  // The next renewal is charged normally with it.
  await advance(api(), clock.id, '2026-03-31T10:00:00.000Z');
  const cols = await collectionsOf(api(), sub.id);
  expect(cols.map((c) => c.status)).toEqual(['paid', 'paid', 'paid']);
});

test('a custom account policy (retry_days [2], final_days 4): one retry at due +2, unpaid at due +4', async () => {
  const other = t.as((await t.account('Custom dunning')).test_key);
  const policy = await other.post('/v1/account/retry_policy', { retry_days: [2], final_days: 4 });
  expect(policy.status).toBe(200);
  expect(policy.body).toEqual({ object: 'retry_policy', retry_days: [2], final_days: 4 });
  const { clock, sub } = await decliningSubscription(other);

  await advance(other, clock.id, RENEWAL);
  const renewal = (await getSub(other, sub.id)).latest_collection;
  expect(await getCol(other, renewal)).toMatchObject({ status: 'past_due', collection_attempts: 1, next_collection_attempt_date: '2026-03-02T10:00:00.000Z' });

  // Nothing on the default's days.
  await advance(other, clock.id, '2026-03-01T23:00:00.000Z');
  expect((await getCol(other, renewal)).collection_attempts).toBe(1);
  await advance(other, clock.id, '2026-03-02T10:00:00.000Z');
  expect(await getCol(other, renewal)).toMatchObject({ status: 'past_due', collection_attempts: 2, next_collection_attempt_date: '2026-03-04T10:00:00.000Z' });
  await advance(other, clock.id, '2026-03-04T09:59:59.000Z');
  expect((await getSub(other, sub.id)).status).toBe('past_due');
  await advance(other, clock.id, '2026-03-04T10:00:00.000Z');
  expect(await getCol(other, renewal)).toMatchObject({ status: 'uncollectible', collection_attempts: 2 });
  expect((await getSub(other, sub.id)).status).toBe('unpaid');
  const types = await historyTypes(other, sub.id);
  expect(count(types, 'collection.payment_failed')).toBe(2);
  expect(types.slice(-2)).toEqual(['collection.uncollectible', 'subscription.unpaid']);
});

test('a collect subscription past due gets reminders (no charges) on the schedule, then uncollectible and unpaid', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  expect(sub.status).toBe('active');
  const first = await getCol(api(), sub.latest_collection);
  // Created on Jan 31 in Bogotá, 5 days: due Feb 5, until its end there (the dunning days count from that instant).
  expect(first).toMatchObject({ status: 'pending', due_date: '2026-02-06T04:59:59.999Z', collection_method: 'collect' });

  await advance(api(), clock.id, '2026-02-05T23:00:00.000-05:00');
  expect((await getCol(api(), first.id)).status).toBe('pending');
  await advance(api(), clock.id, '2026-02-06T00:00:00.000-05:00');
  expect(await getCol(api(), first.id)).toMatchObject({ status: 'past_due', next_collection_attempt_date: '2026-02-07T04:59:59.999Z' });
  expect((await getSub(api(), sub.id)).status).toBe('past_due');

  for (const [day, next] of [
    ['2026-02-07T04:59:59.999Z', '2026-02-09T04:59:59.999Z'],
    ['2026-02-09T04:59:59.999Z', '2026-02-11T04:59:59.999Z'],
    ['2026-02-11T04:59:59.999Z', '2026-02-13T04:59:59.999Z'],
  ] as const) {
    await advance(api(), clock.id, day);
    expect(await getCol(api(), first.id)).toMatchObject({ status: 'past_due', collection_attempts: 0, next_collection_attempt_date: next });
  }
  await advance(api(), clock.id, '2026-02-13T04:59:59.999Z');
  expect(await getCol(api(), first.id)).toMatchObject({ status: 'uncollectible', collection_attempts: 0 });
  expect((await getSub(api(), sub.id)).status).toBe('unpaid');

  const types = await historyTypes(api(), sub.id);
  expect(count(types, 'collection.reminder')).toBe(3);
  expect(count(types, 'collection.payment_failed')).toBe(0);
  expect(types.filter((t) => t.startsWith('charge.') || t.startsWith('transaction.'))).toEqual([]);
  expect(types.filter((t) => t !== 'collection.reminder').slice(-4)).toEqual(['collection.past_due', 'subscription.past_due', 'collection.uncollectible', 'subscription.unpaid']);
  const reminders = (await api().get(`/v1/events?object_id=${first.id}&limit=100`)).body.data.filter((e: { type: string }) => e.type === 'collection.reminder');
  expect(reminders.map((e: any) => e.data.object.next_collection_attempt_date)).toEqual(['2026-02-09T04:59:59.999Z', '2026-02-11T04:59:59.999Z', '2026-02-13T04:59:59.999Z']);
});

test('a collect subscription past due, paid through its link: active again, no more reminders', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 3 })).body;
  // Due Feb 3 (Bogotá), past due from its end; the first reminder a day later (2026-02-05T04:59:59.999Z).
  await advance(api(), clock.id, '2026-02-05T12:00:00.000Z');
  expect((await getSub(api(), sub.id)).status).toBe('past_due');
  const paid = await api().post(`/v1/collections/${sub.latest_collection}/pay`, { payment_information: card() });
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'paid', paid_date: '2026-02-05T12:00:00.000Z' });
  expect((await getSub(api(), sub.id)).status).toBe('active');
  await advance(api(), clock.id, '2026-02-20T00:00:00.000Z');
  const types = await historyTypes(api(), sub.id);
  expect(count(types, 'collection.reminder')).toBe(1);
  expect(count(types, 'collection.uncollectible')).toBe(0);
  expect((await getSub(api(), sub.id)).status).toBe('active');
});
