import { HostedCheckout } from '../../libs/checkout/src/application/hosted-checkout.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf } from '../support/lifecycle.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Payment links and coupons: discount durations, uses and redemptions held while a session is paid, links opened without writing. */
let t: TestApp;
let key: string;
let pages: HostedCheckout;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Ana')).test_key;
  pages = t.app.get(HostedCheckout);
});
afterAll(() => t.close());

const api = () => t.as(key);
const req = { ip_address: '198.51.100.9', user_agent: 'jest' };
const tokenOf = (url: string) => url.split('#')[1];
let n = 0;
const newCode = () => `DUR${++n}${Date.now() % 100000}`;

/** The totals of a subscription's collections, oldest first. */
const totals = async (subscriptionId: string) => (await collectionsOf(api(), subscriptionId)).map((c: { total: string }) => c.total);

describe('discounts by code without duration_in_collections apply to every cycle', () => {
  test('subscriptions: no duration → cycles 1, 2, 3 discounted (the coupon says 1); a given duration of 2 still limits it', async () => {
    const s = await billingSetup(api());
    const code = newCode();
    await api().post('/v1/coupons', { code, percent: '10', duration_in_collections: 1 });
    const { clock, customer } = await clockAndCustomer(api(), '2026-01-10T10:00:00.000Z');
    const all = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card(), discounts: [{ code }] });
    expect(all.status).toBe(200);
    expect(all.body.discounts).toEqual([expect.objectContaining({ code, percent: '10', duration_in_collections: null })]);
    const two = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card(), discounts: [{ code, duration_in_collections: 2 }] });
    expect(two.body.discounts).toEqual([expect.objectContaining({ code, duration_in_collections: 2 })]);
    await advance(api(), clock.id, '2026-02-10T10:00:00.000Z');
    await advance(api(), clock.id, '2026-03-10T10:00:00.000Z');
    expect(await totals(all.body.id)).toEqual(['44910.00', '44910.00', '44910.00']);
    expect(await totals(two.body.id)).toEqual(['44910.00', '44910.00', '49900.00']);
  });

  test('checkout sessions (subscription mode): the renewals of the subscription it makes keep the discount', async () => {
    const s = await billingSetup(api());
    const code = newCode();
    await api().post('/v1/coupons', { code, amount: '9900', currency: 'COP', duration_in_collections: 1 });
    const { clock, customer } = await clockAndCustomer(api(), '2026-01-10T10:00:00.000Z');
    const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], discounts: [{ code }] })).body;
    expect(session.discounts).toEqual([expect.objectContaining({ code, duration_in_collections: null })]);
    expect((await pages.pay(tokenOf(session.url), { payment_information: card() }, req)).status).toBe('complete');
    const subscription = (await api().get(`/v1/checkout_session/${session.id}`)).body.subscription;
    expect((await api().get(`/v1/subscriptions/${subscription}`)).body.discounts).toEqual([expect.objectContaining({ code, duration_in_collections: null })]);
    await advance(api(), clock.id, '2026-02-10T10:00:00.000Z');
    await advance(api(), clock.id, '2026-03-10T10:00:00.000Z');
    expect(await totals(subscription)).toEqual(['40000.00', '40000.00', '40000.00']);
  });

  test('payment links: the sessions and subscriptions a link makes carry the discount for every cycle', async () => {
    const s = await billingSetup(api());
    const code = newCode();
    await api().post('/v1/coupons', { code, percent: '10', duration_in_collections: 1 });
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.monthly.id }], discounts: [{ code }] })).body;
    const opened = await pages.openPaymentLink(link.id, req);
    const tk = tokenOf(opened.url);
    const email = `dur.${Date.now()}@example.com`;
    await pages.requestEmailCode(tk, email, req);
    await pages.createCustomer(tk, { email, name: 'Visitante' }, req);
    expect((await pages.pay(tk, { payment_information: card() }, req)).status).toBe('complete');
    const session = (await api().get(`/v1/checkout_session/${opened.session}`)).body;
    expect(session.discounts).toEqual([expect.objectContaining({ code, duration_in_collections: null })]);
    expect((await api().get(`/v1/subscriptions/${session.subscription}`)).body.discounts).toEqual([expect.objectContaining({ code, duration_in_collections: null })]);
  });

  test('a code the customer types on the page keeps the coupon own duration (no request names one)', async () => {
    const s = await billingSetup(api());
    const code = newCode();
    await api().post('/v1/coupons', { code, percent: '10', duration_in_collections: 1 });
    const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
    await pages.applyCoupon(tokenOf(session.url), code, req);
    expect((await api().get(`/v1/checkout_session/${session.id}`)).body.discounts).toEqual([expect.objectContaining({ code, duration_in_collections: 1, applied_by: 'customer' })]);
  });
});
