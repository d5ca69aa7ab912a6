import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError, feed, lastEventId } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * POST /v1/subscriptions/{id}/resume on a subscription whose cancellation is scheduled for the period
 * end withdraws it: subscription.cancellation_withdrawn, back to active, cancel_at null, and at the
 * period end it renews instead of being canceled.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());
const api = () => t.as(key);

test('resume on pending_cancel withdraws the cancellation; at the period end the subscription renews', async () => {
  const clock = (await api().post('/v1/test_helpers/test_clocks', { frozen_time: '2026-01-15T12:00:00.000Z' })).body;
  const s = await billingSetup(api());
  const customer = (await api().post('/v1/customers', { email: `withdraw.${Date.now()}@example.com`, name: 'Ana Gómez', test_clock: clock.id })).body;
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  const pending = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
  expect(pending.body).toMatchObject({ status: 'pending_cancel', cancel_at: sub.current_period_end });

  const before = await lastEventId(api());
  const kept = await api().post(`/v1/subscriptions/${sub.id}/resume`, {});
  expect(kept.status).toBe(200);
  expect(kept.body).toMatchObject({ status: 'active', cancel_at: null, canceled_at: null, next_renewal_date: sub.next_renewal_date });
  const events = await feed(api(), before);
  expect(events.map((e) => e.type)).toEqual(['subscription.cancellation_withdrawn']);
  expect(events[0].data.object).toMatchObject({ id: sub.id, status: 'active', cancel_at: null });

  // Nothing left to withdraw: a second resume names the state.
  expectApiError(await api().post(`/v1/subscriptions/${sub.id}/resume`, {}), 409, 'invalid_state', null, /status is active/);

  // Past the date it would have ended: renewed and still active.
  await api().post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozen_time: '2026-02-16T12:00:00.000Z' });
  const later = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(later).toMatchObject({ status: 'active', canceled_at: null });
  expect(Date.parse(later.next_renewal_date)).toBeGreaterThan(Date.parse(sub.next_renewal_date));
});
