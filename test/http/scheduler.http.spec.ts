import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ now: new Date('2026-01-31T10:00:00.000Z') });
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);

test('a charge subscription renews at next_renewal_date, keeping the anchor day across February', async () => {
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  expect(sub.next_renewal_date).toBe('2026-02-28T10:00:00.000Z');
  expect((await t.runDue()).ran).toBe(0);
  t.clock.set(new Date('2026-02-28T10:00:00.000Z'));
  const run = await t.runDue();
  expect(run.ran).toBeGreaterThanOrEqual(1);
  const renewed = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(renewed).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-03-31T10:00:00.000Z', current_period_start: '2026-02-28T10:00:00.000Z' });
  const col = (await api().get(`/v1/collections/${renewed.latest_collection}`)).body;
  expect(col).toMatchObject({ status: 'paid', total: '49900.00', billing_reason: 'subscription_cycle', subscription: sub.id });
  // Nothing more is due; running again does nothing.
  expect((await t.runDue()).ran).toBe(0);
});

test('a renewal declined: past_due, retries on the dunning schedule, then unpaid and uncollectible', async () => {
  t.clock.set(new Date('2026-01-31T10:00:00.000Z'));
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  // The saved card starts declining (swap the subscription to a migrated declining token).
  const declining = (await api().post('/v1/payment_methods/migrate', { customer: s.customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_decline_x1', card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 } })).body;
  expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id })).status).toBe(200);

  t.clock.set(new Date('2026-02-28T10:00:00.000Z'));
  await t.runDue();
  let now = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(now.status).toBe('past_due');
  let col = (await api().get(`/v1/collections/${now.latest_collection}`)).body;
  expect(col).toMatchObject({ status: 'past_due', collection_attempts: 1, dunning_step: 0, next_collection_attempt_date: '2026-03-01T10:00:00.000Z' });

  for (const [day, attempts, next] of [
    ['2026-03-01T10:00:00.000Z', 2, '2026-03-03T10:00:00.000Z'],
    ['2026-03-03T10:00:00.000Z', 3, '2026-03-05T10:00:00.000Z'],
    ['2026-03-05T10:00:00.000Z', 4, '2026-03-07T10:00:00.000Z'],
  ] as const) {
    t.clock.set(new Date(day));
    await t.runDue();
    col = (await api().get(`/v1/collections/${now.latest_collection}`)).body;
    expect(col).toMatchObject({ status: 'past_due', collection_attempts: attempts, next_collection_attempt_date: next });
  }
  t.clock.set(new Date('2026-03-07T10:00:00.000Z'));
  await t.runDue();
  col = (await api().get(`/v1/collections/${now.latest_collection}`)).body;
  expect(col.status).toBe('uncollectible');
  now = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(now.status).toBe('unpaid');
  const types = (await api().get(`/v1/subscriptions/${sub.id}/history`)).body.data.map((e: { type: string }) => e.type);
  expect(types).toEqual(expect.arrayContaining(['collection.past_due', 'subscription.past_due', 'collection.uncollectible', 'subscription.unpaid']));
  expect(types.indexOf('collection.past_due')).toBeLessThan(types.indexOf('subscription.past_due'));
  // Paying the overdue collection brings it back.
  const paid = await api().post(`/v1/collections/${now.latest_collection}/pay`, { payment_information: card() });
  expect(paid.body.status).toBe('paid');
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
});

test('an incomplete subscription expires after 23 hours and its collection is voided', async () => {
  t.clock.set(new Date('2026-05-01T10:00:00.000Z'));
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline') })).body;
  expect(sub.status).toBe('incomplete');
  t.clock.set(new Date('2026-05-02T08:59:59.000Z'));
  await t.runDue();
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('incomplete');
  t.clock.set(new Date('2026-05-02T09:00:00.000Z'));
  await t.runDue();
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'expired', expired_at: '2026-05-02T09:00:00.000Z' });
  expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.status).toBe('voided');
});
