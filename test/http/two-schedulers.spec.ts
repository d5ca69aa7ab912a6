import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { feed } from '../support/subscription-helpers.js';

/**
 * Two schedulers (two service instances on one DATA_DIR, as two worker processes on one pair of
 * stores) acting on the same deadlines at the same moment: every deadline has one effect.
 */
let a: TestApp;
let b: TestApp;
let key: string;

beforeAll(async () => {
  a = await startTestApp({ now: new Date('2026-03-01T09:00:00.000Z') });
  b = await startTestApp({ dataDir: a.dataDir, now: new Date('2026-03-01T09:00:00.000Z') });
  key = (await a.account()).test_key;
  for (let i = 0; i < 50 && (await b.as(key).get('/v1/products')).status !== 200; i++) await new Promise((r) => setTimeout(r, 20));
});
afterAll(async () => {
  await b.close();
  await a.close();
});

test('twenty subscriptions due at once, renewed by two schedulers racing: each renewed once, charged once', async () => {
  const api = a.as(key);
  const s = await billingSetup(api);
  const subs: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
    expect(res.body.status).toBe('active');
    subs.push(res.body.id);
  }
  const due = new Date('2026-04-01T09:00:00.000Z');
  a.clock.set(due);
  b.clock.set(due);
  // Both schedulers see the same due documents and act on them at the same time.
  const [ra, rb] = await Promise.all([a.runDue(), b.runDue()]);
  expect(ra.ran + rb.ran).toBeGreaterThanOrEqual(20);
  // Let each instance run again: nothing is left to do.
  await Promise.all([a.runDue(), b.runDue()]);

  const events = await feed(api);
  for (const id of subs) {
    const sub = (await api.get(`/v1/subscriptions/${id}`)).body;
    expect(sub).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-05-01T09:00:00.000Z' });
    const renewals = events.filter((e) => e.type === 'subscription.renewed' && e.data.object.id === id);
    expect(renewals).toHaveLength(1);
    const collections = (await api.get(`/v1/collections?subscription=${id}&limit=100`)).body.data;
    expect(collections).toHaveLength(2);
    expect(collections.every((c: { status: string }) => c.status === 'paid')).toBe(true);
    const charges = (await api.get(`/v1/charges?collection=${sub.latest_collection}`)).body.data;
    expect(charges.map((c: { status: string }) => c.status)).toEqual(['succeeded']);
  }
}, 60_000);
