import { billingSetup, card } from '#test/support/billing-fixtures.js';
import { advance, clockAndCustomer, clockEmail, decliningMethod, getSub } from '#test/support/lifecycle.js';
import { startTestApp, type TestApp } from '#test/support/test-app.js';

/**
 * A year of a small business on a test clock, and the revenue reports it makes, asserted against
 * figures worked out by hand (docs/revenue-analytics.md defines each one). Every event happens at
 * 15:00 UTC (10:00 in Bogotá), so each one falls on the calendar day its date names.
 *
 * Prices (COP unless said): M50 monthly 50,000 · M80 monthly 80,000 · M30 monthly 30,000 ·
 * Q270 every 3 months 270,000 (MRR 90,000) · Y1200 yearly 1,200,000 (MRR 100,000) ·
 * USD25 monthly US$25 on a COP subscription (the table's 4,000 COP per USD: 100,000).
 * One customer per subscription (A … H).
 *
 *   Jan  5  A M50, B Q270, C M50 with coupon TRES20 (20 % for 3 cycles: 40,000)   new 50+90+40 = 180,000
 *   Feb  5  A, C renew (50,000 + 40,000)
 *   Feb 10  D Y1200, E USD25                                                         new 100+100 = 200,000
 *   Feb 20  B cancels at period end (still counted until Apr 5)
 *   Mar  5  A, C renew (50,000 + 40,000: C's third and last discounted cycle)
 *   Mar 10  A upgrades M50 → M80                                                     expansion 30,000
 *           F M80; E renews (100,000)                                                new 80,000
 *   Apr  5  A renews at 80,000; C's fourth cycle at full price 50,000                expansion 10,000
 *           B's period ends                                                          churn 90,000
 *   Apr 10  E, F renew (100,000 + 80,000)
 *   Apr 15  G M50, H M50 (both then switched to a declining card)                    new 100,000
 *   May  5  A 80,000, C 50,000 · May 10 E 100,000, F 80,000
 *   May 12  F downgrades M80 → M30                                                   contraction 50,000
 *   May 15  G and H decline: past due (at risk 100,000); G back on its good card
 *   May 16  G's retry pays 50,000 (recovered 50,000); H's retries fail (16, 18, 20)
 *   May 22  H unpaid                                                                 churn 50,000
 *   Jun  5  A 80,000, C 50,000 · Jun 10 E 100,000 (refunded in full), F 30,000 · Jun 15 G 50,000
 *   Jun 20  A cancels now                                                            churn 80,000
 *   Jul–Dec C 50,000 + E 100,000 + F 30,000 + G 50,000 = 230,000 a month; MRR stays 330,000
 *
 * MRR at each month's end: Jan 180,000 · Feb 380,000 · Mar 490,000 · Apr 510,000 (490 + 100 + 10 − 90)
 * · May 410,000 (510 − 50 − 50) · Jun to Dec 330,000. Collected: Jan 50+270+40 = 360,000 · Feb
 * 50+40+1,200+100 = 1,390,000 · Mar 50+40+80+100 = 270,000 · Apr 80+50+100+80+50+50 = 410,000 · May
 * 80+50+100+80+50 = 360,000 · Jun 80+50+100+30+50 = 310,000 (refunded 100,000: net 210,000) ·
 * Jul–Dec 230,000.
 */
let t: TestApp;
let key: string;
const api = () => t.as(key);
let report: any;
const at = (day: string) => `${day}T15:00:00.000Z`;

async function price(product: string, body: object) {
  const res = await api().post('/v1/prices', { product_id: product, type: 'recurring', ...body });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  const s = await billingSetup(api());
  const product = s.product.id;
  const M50 = await price(product, { billing_period: 'month', billing_interval: 1, unit_price: '50000', currency: 'COP' });
  const M80 = await price(product, { billing_period: 'month', billing_interval: 1, unit_price: '80000', currency: 'COP' });
  const M30 = await price(product, { billing_period: 'month', billing_interval: 1, unit_price: '30000', currency: 'COP' });
  const Q270 = await price(product, { billing_period: 'month', billing_interval: 3, unit_price: '270000', currency: 'COP' });
  const Y1200 = await price(product, { billing_period: 'year', billing_interval: 1, unit_price: '1200000', currency: 'COP' });
  const USD25 = await price(product, { billing_period: 'month', billing_interval: 1, unit_price: '25.00', currency: 'USD' });
  expect((await api().post('/v1/coupons', { code: 'TRES20', percent: '20' })).status).toBe(200);

  const { clock, customer: a } = await clockAndCustomer(api(), at('2027-01-05'));
  const customer = async () => {
    const res = await api().post('/v1/customers', { email: clockEmail(), name: 'Cliente', test_clock: clock.id });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const subscribe = async (customerId: string, priceId: string, extra: object = {}) => {
    const res = await api().post('/v1/subscriptions', { customer: customerId, items: [{ price: priceId }], payment_information: card(), currency: 'COP', ...extra });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('active');
    return res.body;
  };
  const to = (day: string) => advance(api(), clock.id, at(day));

  const A = await subscribe(a.id, M50);
  const B = await subscribe(await customer(), Q270);
  const C = await subscribe(await customer(), M50, { discounts: [{ code: 'TRES20', duration_in_collections: 3 }] });
  expect(C.discounts).toMatchObject([{ code: 'TRES20', percent: '20', duration_in_collections: 3 }]);
  await to('2027-02-10');
  await subscribe(await customer(), Y1200);
  const E = await subscribe(await customer(), USD25);
  await to('2027-02-20');
  expect((await api().post(`/v1/subscriptions/${B.id}/cancel`, { cancel_at: 'period_end' })).body.status).toBe('pending_cancel');
  await to('2027-03-10');
  const upgrade = await api().post(`/v1/subscriptions/${A.id}/update`, { items: [{ id: A.items[0].id, price: M80 }] });
  expect(upgrade.status).toBe(200);
  const F = await subscribe(await customer(), M80);
  await to('2027-04-15');
  expect((await getSub(api(), B.id)).status).toMatch(/^(canceled|ended)$/);
  const gCustomer = await customer();
  const G = await subscribe(gCustomer, M50);
  const hCustomer = await customer();
  const H = await subscribe(hCustomer, M50);
  for (const [sub, cus] of [[G, gCustomer], [H, hCustomer]] as const) {
    const declining = await decliningMethod(api(), cus);
    expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id })).status).toBe(200);
  }
  await to('2027-05-12');
  expect((await api().post(`/v1/subscriptions/${F.id}/update`, { items: [{ id: F.items[0].id, price: M30 }] })).status).toBe(200);
  await to('2027-05-15');
  expect((await getSub(api(), G.id)).status).toBe('past_due');
  expect((await getSub(api(), H.id)).status).toBe('past_due');
  expect((await api().post(`/v1/subscriptions/${G.id}/update`, { payment_method: G.payment_method })).status).toBe(200);
  await to('2027-05-17');
  expect((await getSub(api(), G.id)).status).toBe('active');
  await to('2027-05-22');
  expect((await getSub(api(), H.id)).status).toBe('unpaid');
  await to('2027-06-10');
  const june = (await getSub(api(), E.id)).latest_collection;
  const refund = await api().post(`/v1/collections/${june}/refund`, {});
  expect(refund.status).toBe(200);
  await to('2027-06-20');
  expect((await api().post(`/v1/subscriptions/${A.id}/cancel`, { cancel_at: 'now' })).body.status).toBe('canceled');
  await to('2027-12-31');
  const res = await api().get('/v1/reports/summary?from=2027-01-01&to=2027-12-31&interval=month&as_of=2028-01-01T04:59:59.999Z');
  expect(res.status).toBe(200);
  report = res.body;
}, 300_000);
afterAll(() => t.close());

const K = (thousands: number) => `${thousands * 1000}.00`;

test('each month: MRR and its movements, subscriptions, customers and churn as worked out by hand', () => {
  // [new, expansion, contraction, churn, MRR at the end, active subscriptions, paying customers, churned subscriptions]
  const expected: Array<[number, number, number, number, number, number, number, number]> = [
    [180, 0, 0, 0, 180, 3, 3, 0],
    [200, 0, 0, 0, 380, 5, 5, 0],
    [80, 30, 0, 0, 490, 6, 6, 0],
    [100, 10, 0, 90, 510, 7, 7, 1],
    [0, 0, 50, 50, 410, 6, 6, 1],
    [0, 0, 0, 80, 330, 5, 5, 1],
    ...Array.from({ length: 6 }, () => [0, 0, 0, 0, 330, 5, 5, 0] as [number, number, number, number, number, number, number, number]),
  ];
  const got = report.periods.map((p: any) => [p.new, p.expansion, p.contraction, p.churn, p.mrr, p.active_subscriptions, p.paying_customers, p.churned_subscriptions]);
  expect(got).toEqual(expected.map(([n, e, c, ch, mrr, act, cus, churned]) => [K(n), K(e), K(c), K(ch), K(mrr), act, cus, churned]));
  expect(report.periods.map((p: any) => p.reactivation)).toEqual(Array(12).fill('0.00'));
  expect(report.periods.map((p: any) => p.start)).toEqual(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'].map((m) => `2027-${m}-01`));
});

test('churn rates: subscribers churned over those active at the start, MRR lost over MRR at the start', () => {
  const [, , , apr, may, jun] = report.periods;
  // April: 1 of 6 subscriptions; (90,000 churn) ÷ 490,000; net of the 10,000 expansion: 80,000 ÷ 490,000.
  expect(apr).toMatchObject({ subscriber_churn_rate: '0.1667', revenue_churn_rate: '0.1837', net_revenue_churn_rate: '0.1633' });
  // May: 1 of 7; (50,000 churn + 50,000 contraction) ÷ 510,000.
  expect(may).toMatchObject({ subscriber_churn_rate: '0.1429', revenue_churn_rate: '0.1961', net_revenue_churn_rate: '0.1961' });
  // June: 1 of 6; 80,000 ÷ 410,000.
  expect(jun).toMatchObject({ subscriber_churn_rate: '0.1667', revenue_churn_rate: '0.1951' });
  // January starts from nothing: no rate.
  expect(report.periods[0]).toMatchObject({ subscriber_churn_rate: null, revenue_churn_rate: null });
  expect(report.periods[11]).toMatchObject({ subscriber_churn_rate: '0.0000', arpu: K(66) });
});

test('each month: money collected, refunded, net, recovered and at risk', () => {
  const collected = [360, 1390, 270, 410, 360, 310, 230, 230, 230, 230, 230, 230];
  expect(report.periods.map((p: any) => p.collected)).toEqual(collected.map(K));
  expect(report.periods.map((p: any) => p.refunded)).toEqual(collected.map((_, i) => K(i === 5 ? 100 : 0)));
  expect(report.periods.map((p: any) => p.net_revenue)).toEqual(collected.map((c, i) => K(i === 5 ? c - 100 : c)));
  expect(report.periods.map((p: any) => p.recovered)).toEqual(collected.map((_, i) => K(i === 4 ? 50 : 0)));
  expect(report.periods.map((p: any) => p.at_risk)).toEqual(Array(12).fill('0.00'));
  expect(report.totals).toMatchObject({ collected: K(4480), refunded: K(100), net_revenue: K(4380), new: K(560), expansion: K(40), contraction: K(50), churn: K(220), mrr_start: '0.00', mrr: K(330) });
});

test('as_of inside a month: at risk while G and H are past due, and renewals due in the next 7 and 30 days', async () => {
  const mid = (await api().get('/v1/reports/at_risk?from=2027-05-01&to=2027-05-31&as_of=2027-05-17T00:00:00Z')).body;
  // G was paid on the 16th; H (50,000) is still past due.
  expect(mid.periods).toEqual([{ start: '2027-05-01', end: '2027-05-16', at_risk: K(50), recovered: K(50) }]);
  const dec = (await api().get('/v1/reports/renewals?as_of=2027-12-01T00:00:00Z')).body;
  // From Nov 30 (Bogotá): C on Dec 5 within 7 days; C, E (US$25 = 100,000), F (30,000), G on Dec 5–15 within 30.
  expect(dec).toMatchObject({ next_7_days: { count: 1, amount: K(50) }, next_30_days: { count: 4, amount: K(230) } });
});

test('the movements of May, each linked to the event that made it', async () => {
  const res = await api().get('/v1/reports/mrr_movements?from=2027-05-01&to=2027-05-31&as_of=2028-01-01T00:00:00Z');
  expect(res.status).toBe(200);
  expect(res.body.data.map((m: any) => [m.type, m.amount, m.event_type])).toEqual([
    ['churn', '-50000.00', 'subscription.unpaid'],
    ['contraction', '-50000.00', 'subscription.updated'],
  ]);
  for (const m of res.body.data) expect((await api().get(`/v1/events/${m.event}`)).body.type).toBe(m.event_type);
});
