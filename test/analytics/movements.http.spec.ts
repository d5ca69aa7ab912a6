import { billingSetup, card } from '#test/support/billing-fixtures.js';
import { advance, clockAndCustomer, decliningMethod, getSub } from '#test/support/lifecycle.js';
import { startTestApp, type TestApp } from '#test/support/test-app.js';

/** The movements the scripted year does not make: pause and resume, a trial converting, an unpaid subscription paid again. */
let t: TestApp;
let key: string;
const api = () => t.as(key);

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const movements = async (asOf: string) => {
  const res = await api().get(`/v1/reports/mrr_movements?from=2027-01-01&to=2027-12-31&as_of=${asOf}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.data.map((m: any) => [m.type, m.amount, m.event_type]).reverse();
};

test('a pause is a contraction and a resume an expansion; a trial counts as new when it converts', async () => {
  const s = await billingSetup(api(), { unitPrice: '60000' });
  const { clock, customer } = await clockAndCustomer(api(), '2027-01-05T15:00:00.000Z');
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card(), trial_days: 10 })).body;
  expect(sub.status).toBe('trialing');
  expect(await movements('2027-01-06T00:00:00Z')).toEqual([]);
  await advance(api(), clock.id, '2027-01-15T15:00:00.000Z');
  expect((await getSub(api(), sub.id)).status).toBe('active');
  expect((await api().post(`/v1/subscriptions/${sub.id}/pause`, {})).status).toBe(200);
  await advance(api(), clock.id, '2027-01-20T15:00:00.000Z');
  expect((await api().post(`/v1/subscriptions/${sub.id}/resume`, {})).status).toBe(200);
  expect(await movements('2027-02-01T00:00:00Z')).toEqual([
    ['new', '60000.00', 'subscription.activated'],
    ['contraction', '-60000.00', 'subscription.paused'],
    ['expansion', '60000.00', 'subscription.resumed'],
  ].map(([type, amount]) => [type, amount, expect.any(String)]));
  const jan = (await api().get('/v1/reports/mrr?from=2027-01-01&to=2027-01-31&as_of=2027-02-01T00:00:00Z')).body.periods[0];
  expect(jan).toMatchObject({ new: '60000.00', expansion: '60000.00', contraction: '60000.00', mrr: '60000.00' });
});

test('an unpaid subscription that pays its overdue collection comes back: a reactivation', async () => {
  const s = await billingSetup(api(), { unitPrice: '40000' });
  const { clock, customer } = await clockAndCustomer(api(), '2027-03-01T15:00:00.000Z');
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  const good = sub.payment_method;
  const bad = await decliningMethod(api(), customer.id);
  expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: bad.id })).status).toBe(200);
  await advance(api(), clock.id, '2027-04-08T15:00:00.000Z');
  const unpaid = await getSub(api(), sub.id);
  expect(unpaid.status).toBe('unpaid');
  const paid = await api().post(`/v1/collections/${unpaid.latest_collection}/pay`, { payment_method: good });
  expect(paid.status).toBe(200);
  await advance(api(), clock.id, '2027-04-09T15:00:00.000Z');
  expect((await getSub(api(), sub.id)).status).toBe('active');
  const all = await movements('2027-05-01T00:00:00Z');
  expect(all.slice(-3).map((m: any) => m.slice(0, 2))).toEqual([
    ['new', '40000.00'],
    ['churn', '-40000.00'],
    ['reactivation', '40000.00'],
  ]);
});
