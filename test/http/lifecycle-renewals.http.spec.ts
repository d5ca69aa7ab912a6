import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf, count, createdDate, getSub, historyTypes } from '../support/lifecycle.js';

/**
 * Issue 4, §3: a monthly `charge` subscription driven through a year by a test clock, renewed on the
 * anchor day (month-end anchoring across February, leap years), in one advance and month by month.
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
/** The twelve renewal dates of a subscription started on 2026-01-31 at 10:00 (the 31st, or the month's last day). */
const RENEWALS = [
  '2026-02-28T10:00:00.000Z',
  '2026-03-31T10:00:00.000Z',
  '2026-04-30T10:00:00.000Z',
  '2026-05-31T10:00:00.000Z',
  '2026-06-30T10:00:00.000Z',
  '2026-07-31T10:00:00.000Z',
  '2026-08-31T10:00:00.000Z',
  '2026-09-30T10:00:00.000Z',
  '2026-10-31T10:00:00.000Z',
  '2026-11-30T10:00:00.000Z',
  '2026-12-31T10:00:00.000Z',
  '2027-01-31T10:00:00.000Z',
];

async function monthlyChargeOnClock(frozen = START, unitPrice = '49900') {
  const s = await billingSetup(api(), { unitPrice });
  const { clock, customer } = await clockAndCustomer(api(), frozen);
  const res = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'active', test_clock: clock.id, current_period_start: new Date(frozen).toISOString() });
  return { clock, customer, sub: res.body, setup: s };
}

/** What a year of renewals leaves behind, checked the same way whichever way the clock got there. */
async function expectAYearOfRenewals(subId: string) {
  const sub = await getSub(api(), subId);
  expect(sub).toMatchObject({
    status: 'active',
    collections_count: 13,
    current_period_start: '2027-01-31T10:00:00.000Z',
    current_period_end: '2027-02-28T10:00:00.000Z',
    next_renewal_date: '2027-02-28T10:00:00.000Z',
  });
  const cols = await collectionsOf(api(), subId);
  expect(cols).toHaveLength(13);
  expect(cols.map((c) => c.status)).toEqual(Array(13).fill('paid'));
  expect(cols.map((c) => c.total)).toEqual(Array(13).fill('49900.00'));
  // Each collection is made at its renewal's own time (the first at creation).
  expect(cols.map((c) => c.created_date)).toEqual([START, ...RENEWALS].map(createdDate));
  expect(cols.map((c) => c.billing_reason)).toEqual(['subscription_create', ...Array(12).fill('subscription_cycle')]);
  expect(cols.map((c) => c.paid_date)).toEqual([START, ...RENEWALS]);
  expect(cols[12].id).toBe(sub.latest_collection);

  const types = await historyTypes(api(), subId);
  expect(count(types, 'subscription.renewed')).toBe(12);
  expect(count(types, 'collection.created')).toBe(13);
  // `collection.paid` on every paid renewal, not only the first.
  expect(count(types, 'collection.paid')).toBe(13);
  expect(count(types, 'subscription.activated')).toBe(1);
  for (const bad of ['collection.past_due', 'subscription.past_due', 'collection.payment_failed', 'subscription.unpaid']) expect(count(types, bad)).toBe(0);
  // Each renewal: the subscription renews, then its collection is created and paid.
  const renewals = types.map((t, i) => (t === 'subscription.renewed' ? i : -1)).filter((i) => i >= 0);
  for (const i of renewals) {
    const after = types.slice(i + 1);
    const created = after.indexOf('collection.created');
    const paid = after.indexOf('collection.paid');
    expect(created).toBeGreaterThanOrEqual(0);
    expect(paid).toBeGreaterThan(created);
  }
  return { sub, cols, types };
}

test('a monthly charge subscription advanced a year in one call renews twelve times, on the 31st or the last day of the month', async () => {
  const { clock, sub } = await monthlyChargeOnClock();
  expect(sub.next_renewal_date).toBe(RENEWALS[0]);
  await advance(api(), clock.id, '2027-01-31T10:00:00.000Z');
  const { cols } = await expectAYearOfRenewals(sub.id);
  expect(cols[0].id).toBe(sub.latest_collection);
});

test('the renewal periods follow the anchor: each subscription.renewed names its period and the next renewal date', async () => {
  const { clock, sub } = await monthlyChargeOnClock();
  await advance(api(), clock.id, '2027-01-31T10:00:00.000Z');
  const res = await api().get(`/v1/events?object_id=${sub.id}&limit=100`);
  expect(res.status).toBe(200);
  const renewed = res.body.data.filter((e: { type: string }) => e.type === 'subscription.renewed');
  expect(renewed.map((e: any) => e.data.object.current_period_start)).toEqual(RENEWALS);
  expect(renewed.map((e: any) => e.data.object.next_renewal_date)).toEqual([...RENEWALS.slice(1), '2027-02-28T10:00:00.000Z']);
});

test('advancing month by month gives the same year as one advance', async () => {
  const { clock, sub } = await monthlyChargeOnClock();
  const seen: string[] = [];
  for (const at of RENEWALS) {
    await advance(api(), clock.id, at);
    const now = await getSub(api(), sub.id);
    seen.push(now.current_period_start);
    expect(now.status).toBe('active');
  }
  expect(seen).toEqual(RENEWALS);
  const { types } = await expectAYearOfRenewals(sub.id);

  // And the event sequence is exactly the one-advance sequence.
  const other = await monthlyChargeOnClock();
  await advance(api(), other.clock.id, '2027-01-31T10:00:00.000Z');
  expect(types).toEqual(await historyTypes(api(), other.sub.id));
});

test('leap year: a subscription anchored on Jan 31 2028 renews on Feb 29 2028, then Mar 31', async () => {
  const { clock, sub } = await monthlyChargeOnClock('2028-01-31T10:00:00.000Z');
  expect(sub.next_renewal_date).toBe('2028-02-29T10:00:00.000Z');
  await advance(api(), clock.id, '2028-02-29T09:59:59.000Z');
  expect((await getSub(api(), sub.id)).collections_count).toBe(1);
  await advance(api(), clock.id, '2028-02-29T10:00:00.000Z');
  const after = await getSub(api(), sub.id);
  expect(after).toMatchObject({ status: 'active', collections_count: 2, current_period_start: '2028-02-29T10:00:00.000Z', next_renewal_date: '2028-03-31T10:00:00.000Z' });
  await advance(api(), clock.id, '2028-05-01T00:00:00.000Z');
  const cols = await collectionsOf(api(), sub.id);
  expect(cols.map((c) => c.created_date)).toEqual(['2028-01-31 10:00:00', '2028-02-29 10:00:00', '2028-03-31 10:00:00', '2028-04-30 10:00:00']);
  expect(cols.map((c) => c.status)).toEqual(['paid', 'paid', 'paid', 'paid']);
  expect((await getSub(api(), sub.id)).next_renewal_date).toBe('2028-05-31T10:00:00.000Z');
});

test('a renewal one second before its date has not happened; at the date it has, exactly once', async () => {
  const { clock, sub } = await monthlyChargeOnClock();
  await advance(api(), clock.id, '2026-02-28T09:59:59.999Z');
  expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
  await advance(api(), clock.id, '2026-02-28T10:00:00.000Z');
  expect(await collectionsOf(api(), sub.id)).toHaveLength(2);
  await advance(api(), clock.id, '2026-03-15T00:00:00.000Z');
  expect(await collectionsOf(api(), sub.id)).toHaveLength(2);
  expect(count(await historyTypes(api(), sub.id), 'subscription.renewed')).toBe(1);
});

test('a collect subscription: each renewal sends a new collection due days_until_due later', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  expect(sub.status).toBe('active');
  // The customer pays the first one through its link before it is due.
  await advance(api(), clock.id, '2026-02-02T00:00:00.000Z');
  expect((await api().post(`/v1/collections/${sub.latest_collection}/pay`, { payment_information: card() })).body.status).toBe('paid');

  await advance(api(), clock.id, '2026-02-28T10:00:00.000Z');
  const now = await getSub(api(), sub.id);
  expect(now).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-03-31T10:00:00.000Z' });
  const cols = await collectionsOf(api(), sub.id);
  expect(cols[1]).toMatchObject({
    id: now.latest_collection,
    status: 'pending',
    collection_method: 'collect',
    // Renewed Feb 28 (05:00 in Bogotá) + 5 days: due Mar 5, until its end there.
    due_date: '2026-03-06T04:59:59.999Z',
    collection_attempts: 0,
    created_date: '2026-02-28 10:00:00',
    billing_reason: 'subscription_cycle',
  });
  const types = await historyTypes(api(), sub.id);
  expect(types.slice(types.indexOf('subscription.renewed'))).toEqual(['subscription.renewed', 'collection.created', 'collection.sent']);
});

test('a discount for 2 collections applies to the first two only, then renewals bill the full price', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const res = await api().post('/v1/subscriptions', {
    customer: customer.id,
    items: [{ price: s.monthly.id }],
    payment_information: card(),
    discounts: [{ code: 'WELCOME', percent: '10', duration_in_collections: 2 }],
  });
  expect(res.status).toBe(200);
  await advance(api(), clock.id, '2026-04-30T10:00:00.000Z');
  const cols = await collectionsOf(api(), res.body.id);
  expect(cols.map((c) => c.total)).toEqual(['44910.00', '44910.00', '49900.00', '49900.00']);
  expect(cols.map((c) => c.status)).toEqual(['paid', 'paid', 'paid', 'paid']);
});
