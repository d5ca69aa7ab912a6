import { billingSetup, card } from '#test/support/billing-fixtures.js';
import { advance, clockAndCustomer } from '#test/support/lifecycle.js';
import { startTestApp, type TestApp } from '#test/support/test-app.js';

let t: TestApp;
let key: string;
const api = () => t.as(key);

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

test('a monthly subscription on a test clock: new MRR, then its renewals collected, then churn', async () => {
  const s = await billingSetup(api(), { unitPrice: '49900' });
  const { clock, customer } = await clockAndCustomer(api(), '2027-01-10T15:00:00.000Z');
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  await advance(api(), clock.id, '2027-03-15T15:00:00.000Z');
  const cancel = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
  expect(cancel.status).toBe(200);
  const res = await api().get('/v1/reports/summary?from=2027-01-01&to=2027-03-31&interval=month&as_of=2027-04-01T00:00:00Z');
  expect(res.status).toBe(200);
  const [jan, feb, mar] = res.body.periods;
  expect(jan).toMatchObject({ start: '2027-01-01', end: '2027-01-31', mrr_start: '0.00', new: '49900.00', mrr: '49900.00', active_subscriptions: 1, paying_customers: 1, collected: '49900.00', arpu: '49900.00' });
  expect(feb).toMatchObject({ mrr_start: '49900.00', mrr: '49900.00', collected: '49900.00', new: '0.00' });
  expect(mar).toMatchObject({ mrr_start: '49900.00', churn: '49900.00', mrr: '0.00', churned_subscriptions: 1, subscriber_churn_rate: '1.0000', collected: '49900.00', active_subscriptions: 0 });
  // As of mid-February the March events do not exist yet.
  const before = await api().get('/v1/reports/mrr?from=2027-01-01&to=2027-03-31&as_of=2027-02-15T00:00:00Z');
  expect(before.status).toBe(200);
  expect(before.body.periods.map((p: any) => p.mrr)).toEqual(['49900.00', '49900.00']);
  const moves = await api().get('/v1/reports/mrr_movements?from=2027-01-01&to=2027-03-31&as_of=2027-04-01T00:00:00Z');
  expect(moves.status).toBe(200);
  expect(moves.body.data.map((m: any) => [m.type, m.amount])).toEqual([['churn', '-49900.00'], ['new', '49900.00']]);
  const event = await api().get(`/v1/events/${moves.body.data[0].event}`);
  expect(event.body.type).toBe('subscription.canceled');
  const csv = await api().get('/v1/reports/mrr?from=2027-01-01&to=2027-03-31&as_of=2027-04-01T00:00:00Z&format=csv');
  expect(csv.status).toBe(200);
  expect(csv.headers['content-type']).toMatch(/text\/csv/);
  expect(csv.text.split('\r\n')[0]).toBe('start,end,mrr_start,new,expansion,contraction,churn,reactivation,net_new,mrr');
  expect(csv.text.split('\r\n')[1]).toBe('2027-01-01,2027-01-31,0.00,49900.00,0.00,0.00,0.00,0.00,49900.00,49900.00');
});
