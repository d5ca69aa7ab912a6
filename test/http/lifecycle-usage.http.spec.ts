import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf, count, getCol, getSub, historyTypes, subscriptionTypes } from '../support/lifecycle.js';

/**
 * Issue 4, §2–3: a `usage_based` renewal on a test clock: `subscription.report_usage` at the renewal
 * date, a wait (USAGE_WAIT_MS, 5 minutes by default) in which items can change, then the collection
 * from the updated items.
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
const COLLECT_AT = '2026-02-28T10:05:00.000Z';

async function usageSubscription(quantity = 2, extra: Record<string, unknown> = {}) {
  const s = await billingSetup(api(), { unitPrice: '1250.50' });
  const { clock, customer } = await clockAndCustomer(api(), START);
  const res = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id, quantity }], payment_information: card(), usage_based: true, ...extra });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'active', usage_based: true, next_renewal_date: RENEWAL });
  expect(await getCol(api(), res.body.latest_collection)).toMatchObject({ status: 'paid', total: (1250.5 * quantity).toFixed(2) });
  return { clock, sub: res.body, setup: s };
}

test('report_usage at the renewal date and no collection yet; a quantity changed inside the wait is what the collection bills', async () => {
  const { clock, sub } = await usageSubscription(2);
  const item = sub.items[0];
  expect(item.id).toBeDefined();

  await advance(api(), clock.id, '2026-02-28T10:02:00.000Z');
  const waiting = await getSub(api(), sub.id);
  expect(waiting).toMatchObject({ status: 'active', collections_count: 1, latest_collection: sub.latest_collection });
  expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
  const types = await subscriptionTypes(api(), sub.id);
  expect(types.at(-1)).toBe('subscription.report_usage');
  const report = (await api().get(`/v1/events?object_id=${sub.id}&limit=100`)).body.data.at(-1);
  expect(report.type).toBe('subscription.report_usage');

  // Inside the wait: the usage is reported by changing the quantity.
  const changed = await api().post(`/v1/subscription_items/${item.id}/update`, { quantity: 7 });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ id: item.id, quantity: 7 });

  await advance(api(), clock.id, '2026-02-28T10:04:59.000Z');
  expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
  await advance(api(), clock.id, '2026-02-28T10:06:00.000Z');
  const renewed = await getSub(api(), sub.id);
  expect(renewed).toMatchObject({
    status: 'active',
    collections_count: 2,
    current_period_start: RENEWAL,
    next_renewal_date: '2026-03-31T10:00:00.000Z',
  });
  const col = await getCol(api(), renewed.latest_collection);
  expect(col).toMatchObject({ status: 'paid', subtotal: '8753.50', total: '8753.50', created_date: '2026-02-28 10:05:00', paid_date: COLLECT_AT, billing_reason: 'subscription_cycle' });
  expect(col.items).toHaveLength(1);
  expect(col.items[0]).toMatchObject({ quantity: 7 });

  const all = await historyTypes(api(), sub.id);
  const from = all.indexOf('subscription.report_usage');
  expect(all.slice(from).filter((x) => ['subscription.report_usage', 'subscription.updated', 'subscription.renewed', 'collection.created', 'collection.paid'].includes(x))).toEqual([
    'subscription.report_usage',
    'subscription.updated',
    'subscription.renewed',
    'collection.created',
    'collection.paid',
  ]);
  expect(count(all, 'subscription.report_usage')).toBe(1);
});

test('advancing past the wait in one call: report_usage, then the collection 5 minutes later with the unchanged items', async () => {
  const { clock, sub } = await usageSubscription(3);
  await advance(api(), clock.id, '2026-03-01T00:00:00.000Z');
  const after = await getSub(api(), sub.id);
  expect(after).toMatchObject({ collections_count: 2, next_renewal_date: '2026-03-31T10:00:00.000Z' });
  expect(await getCol(api(), after.latest_collection)).toMatchObject({ status: 'paid', total: '3751.50', created_date: '2026-02-28 10:05:00' });
  const types = await subscriptionTypes(api(), sub.id);
  expect(types.slice(-2)).toEqual(['subscription.report_usage', 'subscription.renewed']);
});

test('each renewal reports usage once: four months, four report_usage each followed by its renewal', async () => {
  const { clock, sub } = await usageSubscription(1);
  await advance(api(), clock.id, '2026-05-31T10:05:00.000Z');
  const types = (await subscriptionTypes(api(), sub.id)).filter((x) => x === 'subscription.report_usage' || x === 'subscription.renewed');
  expect(types).toEqual(Array(4).fill(['subscription.report_usage', 'subscription.renewed']).flat());
  const cols = await collectionsOf(api(), sub.id);
  expect(cols.map((c) => c.created_date)).toEqual(['2026-01-31 10:00:00', '2026-02-28 10:05:00', '2026-03-31 10:05:00', '2026-04-30 10:05:00', '2026-05-31 10:05:00']);
  expect(cols.map((c) => c.total)).toEqual(Array(5).fill('1250.50'));
  expect((await getSub(api(), sub.id)).next_renewal_date).toBe('2026-06-30T10:00:00.000Z');
});

test('an item added inside the wait is billed too', async () => {
  const { clock, sub, setup } = await usageSubscription(1);
  const extra = (await api().post('/v1/prices', { product_id: setup.product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '99.50', currency: 'COP' })).body;
  await advance(api(), clock.id, '2026-02-28T10:01:00.000Z');
  const added = await api().post('/v1/subscription_items', { subscription: sub.id, price: extra.id, quantity: 4 });
  expect(added.status).toBe(200);
  await advance(api(), clock.id, '2026-02-28T10:05:00.000Z');
  const now = await getSub(api(), sub.id);
  expect(await getCol(api(), now.latest_collection)).toMatchObject({ status: 'paid', total: '1648.50' });
});
