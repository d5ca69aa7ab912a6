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
