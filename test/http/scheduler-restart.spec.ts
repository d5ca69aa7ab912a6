import { startTestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';

/**
 * Deadlines are as durable as the events: a renewal that fell due while the service was down runs
 * when it starts again (the worker's first poll), once.
 */
test('a renewal missed while the service was down runs at the next start', async () => {
  const first = await startTestApp({ now: new Date('2026-06-15T08:00:00.000Z') });
  const key = (await first.account()).test_key;
  const s = await billingSetup(first.as(key));
  const sub = (await first.as(key).post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.next_renewal_date).toBe('2026-07-15T08:00:00.000Z');
  await first.close();

  // Down for three weeks; the renewal date passed meanwhile. Start again with the worker on.
  const second = await startTestApp({ dataDir: first.dataDir, now: new Date('2026-08-05T08:00:00.000Z'), scheduler: true });
  try {
    // Wait for the worker's whole renewal (renewed, then the collection made and charged).
    let renewed: any;
    for (let i = 0; i < 100; i++) {
      renewed = (await second.as(key).get(`/v1/subscriptions/${sub.id}`)).body;
      if (renewed.collections_count === 2 && (await second.as(key).get(`/v1/collections/${renewed.latest_collection}`)).body.status === 'paid') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(renewed).toMatchObject({ status: 'active', collections_count: 2, current_period_start: '2026-07-15T08:00:00.000Z', next_renewal_date: '2026-08-15T08:00:00.000Z' });
    const latest = (await second.as(key).get(`/v1/collections/${renewed.latest_collection}`)).body;
    expect(latest).toMatchObject({ status: 'paid', billing_reason: 'subscription_cycle' });
    // Once: a second poll (and a third) finds nothing more to do.
    await new Promise((r) => setTimeout(r, 1200));
    expect((await second.as(key).get(`/v1/collections?subscription=${sub.id}`)).body.data).toHaveLength(2);
  } finally {
    await second.close();
  }
}, 30_000);
