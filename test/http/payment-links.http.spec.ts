import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let pages: HostedCheckout;
let checkoutUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Ana')).test_key;
  pages = t.app.get(HostedCheckout);
  checkoutUrl = t.app.get<Config>(CONFIG).checkoutUrl;
});
afterAll(() => t.close());

const api = () => t.as(key);
const req = { ip_address: '198.51.100.2', user_agent: 'jest' };
const tokenOf = (url: string) => url.split('#')[1];
let n = 0;

/** A visitor opens the link, identifies with a new e-mail and pays with `c`. */
async function visitAndPay(linkId: string, c = card()) {
  const opened = await pages.openPaymentLink(linkId, req);
  const tk = tokenOf(opened.url);
  const email = `visitor.${++n}.${Date.now()}@example.com`;
  await pages.requestEmailCode(tk, email, req);
  await pages.createCustomer(tk, { email, name: 'Visitante' }, req);
  return { opened, outcome: await pages.pay(tk, { payment_information: c }, req) };
}

describe('payment links', () => {
  test('only one-time prices: each paid visit is a single collection, no subscription', async () => {
    const s = await billingSetup(api());
    const link = await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id, quantity: 2 }], meta_data: { campaign: 'x' } });
    expect(link.status).toBe(200);
    expect(link.body).toMatchObject({ id: expect.stringMatching(/^pl_/), object: 'payment_link', url: `${checkoutUrl}/pl/${link.body.id}`, mode: 'payment', active: true, usage_limit: null, times_used: 0, cta_text: 'Pagar', meta_data: { campaign: 'x' } });
    const { opened, outcome } = await visitAndPay(link.body.id);
    expect(outcome.status).toBe('complete');
    const session = (await api().get(`/v1/checkout_session/${opened.session}`)).body;
    expect(session).toMatchObject({ mode: 'payment', payment_link: link.body.id, payment_status: 'paid', subscription: null, total: '20000.00' });
    expect((await api().get(`/v1/payment_links/${link.body.id}`)).body.times_used).toBe(1);
    expect((await api().get('/v1/payment_links')).body.data.map((l: { id: string }) => l.id)).toContain(link.body.id);
  });

  test('a link with discounts [{code}]: every session carries the coupon; each paid visit redeems it once', async () => {
    const s = await billingSetup(api());
    const code = `LINK${Date.now() % 100000}`;
    const coupon = (await api().post('/v1/coupons', { code, amount: '2000', currency: 'COP', max_redemptions: 5 })).body;
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], discounts: [{ code }] })).body;
    expect(link.discounts).toEqual([{ code }]);
    const { opened, outcome } = await visitAndPay(link.id);
    expect(outcome.status).toBe('complete');
    expect(outcome.session.total).toBe('8000.00');
    expect((await api().get(`/v1/checkout_session/${opened.session}`)).body.discounts).toEqual([expect.objectContaining({ code, amount: '2000.00' })]);
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    expect((await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], discounts: [{ code: 'NOPE' }] })).body.error).toMatchObject({ code: 'coupon_invalid', param: 'discounts[0][code]' });
  });

  test('recurring prices create subscriptions, with the link subscription_settings', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.monthly.id }, { price: s.setupFee.id }], subscription_settings: { trial_days: 7 }, cta_text: 'Suscribirse' })).body;
    expect(link).toMatchObject({ mode: 'subscription', subscription_settings: { trial_days: 7 } });
    const { opened, outcome } = await visitAndPay(link.id);
    expect(outcome.status).toBe('complete');
    const session = (await api().get(`/v1/checkout_session/${opened.session}`)).body;
    const sub = (await api().get(`/v1/subscriptions/${session.subscription}`)).body;
    expect(sub).toMatchObject({ status: 'trialing', trial_days: 7 });
  });

  test('the spec rules: subscription_settings without a recurring price, frequencies, ntp, cta_text, usage_limit, gateways', async () => {
    const s = await billingSetup(api());
    const weekly = (await api().post('/v1/prices', { product_id: s.product.id, type: 'recurring', billing_period: 'week', billing_interval: 1, unit_price: '9000' })).body;
    const ntp1 = (await api().post('/v1/prices', { product_id: s.product.id, type: 'one_time', pricing_model: 'ntp', ntp_pricing: { min_amount: '1000', max_amount: '90000' } })).body;
    const ntp2 = (await api().post('/v1/prices', { product_id: s.product.id, type: 'one_time', pricing_model: 'ntp', ntp_pricing: { min_amount: '1000' } })).body;
    const post = (body: object) => api().post('/v1/payment_links', body);
    expectApiError(await post({ items: [{ price: s.setupFee.id }], subscription_settings: { duration: 3 } }), 400, 'parameter_invalid', 'subscription_settings');
    expectApiError(await post({ items: [{ price: s.monthly.id }, { price: weekly.id }] }), 400, 'parameter_invalid', 'items', 'All prices must have the same frequency (billing_period and billing_interval)');
    expectApiError(await post({ items: [{ price: ntp1.id }, { price: ntp2.id }] }), 400, 'parameter_invalid', 'items');
    expectApiError(await post({ items: [{ price: s.monthly.id }, { price: ntp1.id }], subscription_settings: { trial_days: 5 } }), 400, 'parameter_invalid', 'subscription_settings[trial_days]');
    expectApiError(await post({ items: [{ price: s.setupFee.id }], cta_text: 'Comprar' }), 400, 'parameter_invalid', 'cta_text');
    expectApiError(await post({ items: [{ price: s.setupFee.id }], usage_limit: 0 }), 400, 'parameter_invalid', 'usage_limit');
    expectApiError(await post({ items: [] }), 400, 'parameter_missing', 'items');
    expectApiError(await post({ items: [{ price: s.setupFee.id }], payment_methods: { stripe: ['card'] } }), 400, 'gateway_not_configured', 'payment_methods[stripe]', 'The gateway stripe is not configured in the account');
    expectApiError(await post({ items: [{ price: 'price_nope' }] }), 404, 'resource_missing', 'items[0][price]');
    for (const cta of ['Pagar', 'Suscribirse', 'Donar', 'Reservar']) expect((await post({ items: [{ price: s.setupFee.id }], cta_text: cta })).status).toBe(200);
  });

  test('an ntp link: the customer chooses the amount within the price limits', async () => {
    const s = await billingSetup(api());
    const ntp = (await api().post('/v1/prices', { product_id: s.product.id, type: 'one_time', pricing_model: 'ntp', ntp_pricing: { min_amount: '1000', max_amount: '90000' } })).body;
    const link = (await api().post('/v1/payment_links', { items: [{ price: ntp.id }], cta_text: 'Donar' })).body;
    const view = await pages.paymentLink(link.id);
    expect(view).toMatchObject({ closed_reason: null, cta_text: 'Donar', choose_amount: { min_amount: '1000.00', max_amount: '90000.00' } });
    const email = `donor.${Date.now()}@example.com`;
    const fresh = tokenOf((await pages.openPaymentLink(link.id, req)).url);
    await pages.requestEmailCode(fresh, email, req);
    await pages.createCustomer(fresh, { email, name: 'Donante' }, req);
    await expect(pages.pay(fresh, { payment_information: card() }, req)).rejects.toMatchObject({ code: 'amount_required' });
    await expect(pages.pay(fresh, { payment_information: card(), ntp_amount: '95000' }, req)).rejects.toMatchObject({ param: 'ntp_amount' });
    const paid = await pages.pay(fresh, { payment_information: card(), ntp_amount: '42000' }, req);
    expect(paid.status).toBe('complete');
    expect(paid.session.total).toBe('42000.00');
  });

  test('usage_limit is exact under concurrent use: limit 2, five visitors paying at once → two paid, the link closed', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], usage_limit: 2 })).body;
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) {
      const opened = await pages.openPaymentLink(link.id, req);
      const tk = tokenOf(opened.url);
      const email = `race.${i}.${Date.now()}@example.com`;
      await pages.requestEmailCode(tk, email, req);
      await pages.createCustomer(tk, { email, name: 'Race' }, req);
      tokens.push(tk);
    }
    const results = await Promise.allSettled(tokens.map((tk) => pages.pay(tk, { payment_information: card() }, req)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('payment_link_used_up');
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(2);
    expect((await pages.paymentLink(link.id)).closed_reason).toBe('used_up');
    await expect(pages.openPaymentLink(link.id, req)).rejects.toMatchObject({ code: 'payment_link_used_up' });
    expectApiError(await api().post(`/v1/payment_links/${link.id}/update`, { usage_limit: 1 }), 400, 'parameter_invalid', 'usage_limit');
  });

  test('deactivating a link closes it; reactivating opens it again', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }] })).body;
    const off = await api().post(`/v1/payment_links/${link.id}/update`, { active: false });
    expect(off.body).toMatchObject({ active: false });
    expect((await pages.paymentLink(link.id)).closed_reason).toBe('inactive');
    await expect(pages.openPaymentLink(link.id, req)).rejects.toMatchObject({ code: 'payment_link_inactive' });
    expect((await api().get('/v1/payment_links?active=false')).body.data.map((l: { id: string }) => l.id)).toContain(link.id);
    await api().post(`/v1/payment_links/${link.id}/update`, { active: true, cta_text: 'Reservar' });
    expect((await pages.openPaymentLink(link.id, req)).url).toContain('/cs/');
    expectApiError(await api().post(`/v1/payment_links/${link.id}/update`, { items: [{ price: s.setupFee.id }] }), 400, 'parameter_unknown', 'items');
    expect((await t.as((await t.account()).test_key).get(`/v1/payment_links/${link.id}`)).status).toBe(404);
  });
});

describe('storefronts', () => {
  test('create, list, same frequency, and choosing a price opens a session that can be paid', async () => {
    const s = await billingSetup(api());
    const weekly = (await api().post('/v1/prices', { product_id: s.product.id, type: 'recurring', billing_period: 'week', billing_interval: 1, unit_price: '9000' })).body;
    expectApiError(await api().post('/v1/storefronts', { name: 'Tienda', items: [{ price: s.monthly.id }, { price: weekly.id }] }), 400, 'parameter_invalid', 'items', 'All prices must have the same frequency (billing_period and billing_interval)');
    expectApiError(await api().post('/v1/storefronts', { items: [{ price: s.monthly.id }] }), 400, 'parameter_missing', 'name');
    const sf = (await api().post('/v1/storefronts', { name: 'Tienda Ana', items: [{ price: s.monthly.id }, { price: s.setupFee.id }] })).body;
    expect(sf).toMatchObject({ id: expect.stringMatching(/^sf_/), object: 'storefront', url: `${checkoutUrl}/sf/${sf.id}`, name: 'Tienda Ana', active: true });
    expect((await api().get('/v1/storefronts')).body.data.map((x: { id: string }) => x.id)).toContain(sf.id);
    const view = await pages.storefront(sf.id);
    expect(view.products).toHaveLength(1);
    expect(view.products[0].prices.map((p) => p.id)).toEqual([s.monthly.id, s.setupFee.id]);
    await expect(pages.openStorefrontChoice(sf.id, { price: 'price_other' }, req)).rejects.toMatchObject({ param: 'price' });
    const opened = await pages.openStorefrontChoice(sf.id, { price: s.monthly.id }, req);
    const session = (await api().get(`/v1/checkout_session/${opened.session}`)).body;
    expect(session).toMatchObject({ mode: 'subscription', storefront: sf.id });
    const tk = tokenOf(opened.url);
    const email = `sf.${Date.now()}@example.com`;
    await pages.requestEmailCode(tk, email, req);
    await pages.createCustomer(tk, { email, name: 'Compradora' }, req);
    expect((await pages.pay(tk, { payment_information: card() }, req)).status).toBe('complete');
    const updated = await api().post(`/v1/storefronts/${sf.id}/update`, { name: 'Tienda Ana 2', active: false });
    expect(updated.body).toMatchObject({ name: 'Tienda Ana 2', active: false });
    await expect(pages.openStorefrontChoice(sf.id, { price: s.monthly.id }, req)).rejects.toMatchObject({ param: 'storefront' });
  });
});
