import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import { CheckoutMailFallback } from '#checkout/application/hosted-checkout.service.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError, feed, lastEventId } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let checkoutUrl: string;
let pages: HostedCheckout;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Ana')).test_key;
  checkoutUrl = t.app.get<Config>(CONFIG).checkoutUrl;
  pages = t.app.get(HostedCheckout);
});
afterAll(() => t.close());

const api = () => t.as(key);
const req = { ip_address: '203.0.113.7', user_agent: 'jest' };
const tokenOf = (url: string) => url.split('#')[1];

describe('POST /v1/checkout_session', () => {
  test('mode subscription: the flat session object with every field of the resource table; url carries the signed token', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/checkout_session', {
      mode: 'subscription',
      customer: s.customer.id,
      items: [{ price: s.monthly.id, quantity: 2 }, { price: s.setupFee.id }],
      after_completion: { type: 'redirect', redirect_url_approved: 'https://merchant.example/ok', redirect_url_processing: 'https://merchant.example/wait' },
      subscription_settings: { duration: 12, commitment_periods: 3 },
      payment_methods: { gateway_a: ['card', 'pse'] },
      meta_data: { order: 'A-1' },
      internal_reference_id: 'ref-1',
      description: 'Plan oro',
      consent: { acceptance_required: true, terms_of_service: true, privacy_policy: false },
      custom_fields: [{ key: 'nit', label: 'NIT', required: true }, { key: 'size', type: 'options', label: 'Talla', options: ['S', 'M'] }],
      invoicing: { enabled: true, invoice_settings: { invoice_document_id: 'FE' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^cs_/),
      object: 'checkout_session',
      mode: 'subscription',
      currency: 'COP',
      customer: s.customer.id,
      status: 'open',
      payment_status: 'unpaid',
      subtotal: '109800.00',
      total: '109800.00',
      expires_at: '2026-11-24T10:00:00.000Z',
      created_date: '2026-11-23T10:00:00.000Z',
      updated_date: '2026-11-23T10:00:00.000Z',
      discounts: [],
      subscription_settings: { duration: 12, commitment_periods: 3, trial_days: null },
      shipping_address_collection: false,
      shipping_address_countries: null,
      shipping_cost: false,
      cta_text: 'Suscribirse',
      payment_methods: { gateway_a: ['card', 'pse'] },
      is_test: true,
      subscription: null,
      payment_method: null,
      invoicing: { enabled: true, invoice_settings: { invoice_document_id: 'FE', invoice_cost_center: null } },
      setup_subscription_id: null,
      description: 'Plan oro',
      internal_reference_id: 'ref-1',
      meta_data: { order: 'A-1' },
      consent: { acceptance_required: true, terms_of_service: true, privacy_policy: false, ip_address: null, user_agent: null },
      custom_fields: [expect.objectContaining({ key: 'nit', type: 'text', required: true }), expect.objectContaining({ key: 'size', options: ['S', 'M'], required: false })],
      after_completion: { type: 'redirect', redirect_url_approved: 'https://merchant.example/ok', redirect_url_processing: 'https://merchant.example/wait' },
    });
    expect(res.body.items).toHaveLength(2);
    expect(res.body.url).toMatch(new RegExp(`^${checkoutUrl}/cs/${res.body.id}#[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    expect(Object.keys(res.body).filter((k) => k.startsWith('_'))).toEqual([]);
    expect((await api().get(`/v1/checkout_session/${res.body.id}`)).body).toEqual(res.body);
    expect((await api().get('/v1/checkout_session?status=open')).body.data.map((x: { id: string }) => x.id)).toContain(res.body.id);
  });

  test('rejections: the error table and the session rules, each a 400 naming the field', async () => {
    const s = await billingSetup(api());
    const weekly = (await api().post('/v1/prices', { product_id: s.product.id, type: 'recurring', billing_period: 'week', billing_interval: 1, unit_price: '9000' })).body;
    const post = (body: object) => api().post('/v1/checkout_session', body);
    expectApiError(await post({ mode: 'subscription', items: [{ price: s.monthly.id }, { price: weekly.id }] }), 400, 'parameter_invalid', 'items', 'All prices must have the same frequency (billing_period and billing_interval)');
    expect((await api().delete('/v1/account/gateways/gateway_j')).status).toBe(200);
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], payment_methods: { gateway_j: ['card'] } }), 400, 'gateway_not_configured', 'payment_methods[gateway_j]', 'The gateway gateway_j is not configured in the account');
    // A name that is no gateway at all: the spec's rejection too, not configured in the account.
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], payment_methods: { stripe: ['card'] } }), 400, 'gateway_not_configured', 'payment_methods[stripe]', 'The gateway stripe is not configured in the account');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], payment_methods: { gateway_b: ['wallet_a'] } }), 400, 'parameter_invalid', 'payment_methods[gateway_b][0]');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.monthly.id }] }), 400, 'parameter_invalid', 'items[0][price]');
    expectApiError(await post({ mode: 'subscription', items: [{ price: s.setupFee.id }] }), 400, 'parameter_invalid', 'items');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], subscription_settings: { trial_days: 3 } }), 400, 'parameter_invalid', 'subscription_settings');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], setup_subscription_id: 'sub_x' }), 400, 'parameter_invalid', 'setup_subscription_id');
    expectApiError(await post({ mode: 'setup', items: [{ price: s.setupFee.id }] }), 400, 'parameter_invalid', 'items');
    expectApiError(await post({ mode: 'payment' }), 400, 'parameter_missing', 'items');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], expires_at: '2026-11-23T10:10:00Z' }), 400, 'parameter_invalid', 'expires_at');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], expires_at: '2026-11-24T10:00:01Z' }), 400, 'parameter_invalid', 'expires_at');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], cta_text: 'Comprar' }), 400, 'parameter_invalid', 'cta_text');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], customer: 'cus_nope' }), 404, 'resource_missing', 'customer');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], discounts: [{ code: 'NOPE' }] }), 400, 'coupon_invalid', 'discounts[0][code]');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], after_completion: { type: 'redirect' } }), 400, 'parameter_missing', 'after_completion[redirect_url_approved]');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], shipping_address_countries: ['CO'] }), 400, 'parameter_invalid', 'shipping_address_countries');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], custom_fields: [{ key: 'a', type: 'options', label: 'A' }] }), 400, 'parameter_invalid', 'custom_fields[0][options]');
    expectApiError(await post({ mode: 'payment', items: [{ price: s.setupFee.id }], colour: 'red' }), 400, 'parameter_unknown', 'colour');
  });
});

describe('paying a session (the hosted page API)', () => {
  test('an approving card: complete, paid, and the events in the spec order (completed, subscription.created, collection.created, collection.paid, subscription.activated)', async () => {
    const s = await billingSetup(api());
    const before = await lastEventId(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
    const view = await pages.open(tokenOf(session.url));
    expect(view).toMatchObject({ id: session.id, status: 'open', merchant: { name: 'Tienda Ana' }, total: '49900.00', can_pay: true, identification: { step: 'done' } });
    expect(view.terms).toMatchObject({ billing_period: 'month', billing_interval: 1, recurring_total: '49900.00' });
    const outcome = await pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req);
    expect(outcome.status).toBe('complete');
    const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
    expect(after).toMatchObject({ status: 'complete', payment_status: 'paid', subscription: expect.stringMatching(/^sub_/), payment_method: expect.stringMatching(/^pm_/) });
    const sub = (await api().get(`/v1/subscriptions/${after.subscription}`)).body;
    expect(sub).toMatchObject({ status: 'active', customer: s.customer.id });
    // The spec's order on paying: the gateway is asked first (the attempt recorded on the session),
    // then the session completes, then its subscription and collection are made and paid.
    const types = (await feed(api(), before)).map((e) => e.type).filter((x) => ['checkout_session.completed', 'subscription.created', 'collection.created', 'collection.paid', 'subscription.activated'].includes(x));
    expect(types).toEqual(['checkout_session.completed', 'subscription.created', 'collection.created', 'collection.paid', 'subscription.activated']);
    // A complete, paid session cannot be paid again.
    await expect(pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).rejects.toMatchObject({ code: 'checkout_session_complete' });
  });

  test('a declined card: readable reason, and a retry on the same page pays (one subscription, made by the approved attempt)', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
    const declined = await pages.pay(tokenOf(session.url), { payment_information: card('insufficientFunds') }, req);
    expect(declined).toMatchObject({ status: 'declined', message: 'The card has insufficient funds.', decline_code: 'insufficient_funds', retry_allowed: true });
    const paid = await pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req);
    expect(paid.status).toBe('complete');
    const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
    expect(after.payment_status).toBe('paid');
    const subs = (await api().get(`/v1/subscriptions?customer=${s.customer.id}`)).body.data;
    expect(subs).toHaveLength(1);
    expect(subs[0].status).toBe('active');
  });

  test('two tabs paying at once: one charge', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
    const results = await Promise.allSettled([1, 2, 3].map(() => pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toMatch(/payment_in_progress|checkout_session_complete/);
    const charges = (await api().get(`/v1/charges?customer=${s.customer.id}`)).body.data;
    expect(charges).toHaveLength(1);
    expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid', collection: expect.stringMatching(/^col_/) });
  });

  test('tampered, foreign and unknown tokens are refused', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
    const token = tokenOf(session.url);
    const [body, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ sid: 'cs_other', exp: Date.parse(session.expires_at) })).toString('base64url');
    await expect(pages.open(`${forged}.${mac}`)).rejects.toMatchObject({ code: 'checkout_token_invalid', status: 404 });
    await expect(pages.open(`${body}.${mac.slice(0, -2)}AA`)).rejects.toMatchObject({ code: 'checkout_token_invalid' });
    await expect(pages.open('garbage')).rejects.toMatchObject({ code: 'checkout_token_invalid' });
  });

  test('a new customer identified by e-mail; on a second purchase recognised by a one-time code', async () => {
    const s = await billingSetup(api());
    const email = `nuevo.${Date.now()}@example.com`;
    const first = (await api().post('/v1/checkout_session', { mode: 'payment', items: [{ price: s.setupFee.id }] })).body;
    const t1 = tokenOf(first.url);
    await expect(pages.pay(t1, { payment_information: card('approve') }, req)).rejects.toMatchObject({ code: 'customer_required' });
    expect((await pages.requestEmailCode(t1, email, req)).identification.step).toBe('new_customer');
    const v1 = await pages.createCustomer(t1, { email, name: 'Nuevo Cliente' }, req);
    expect(v1.customer).toMatchObject({ email, name: 'Nuevo Cliente' });
    expect((await pages.pay(t1, { payment_information: card('approve') }, req)).status).toBe('complete');

    const second = (await api().post('/v1/checkout_session', { mode: 'payment', items: [{ price: s.setupFee.id }] })).body;
    const t2 = tokenOf(second.url);
    const asked = await pages.requestEmailCode(t2, email.toUpperCase(), req);
    expect(asked.identification).toMatchObject({ step: 'code', attempts_left: 5 });
    const mail = t.app.get(CheckoutMailFallback).messages.filter((m) => m.refs?.checkout_session === second.id);
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ to: email, kind: 'checkout.email_code' });
    const code = /(\d{6})/.exec(mail[0].text)![1];
    const wrong = code === '000000' ? '111111' : '000000';
    await expect(pages.verifyEmailCode(t2, wrong, req)).rejects.toMatchObject({ code: 'email_code_invalid', extra: { attempts_left: 4 } });
    const v2 = await pages.verifyEmailCode(t2, code, req);
    expect(v2.customer?.id).toBe(v1.customer!.id);
    expect(v2.customer?.saved_payment_methods).toHaveLength(1);
    const paid = await pages.pay(t2, { payment_method: v2.customer!.saved_payment_methods[0].id }, req);
    expect(paid.status).toBe('complete');
  });

  test('e-mail codes: five wrong attempts lock the code; an expired code is refused', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'payment', items: [{ price: s.setupFee.id }] })).body;
    const tk = tokenOf(session.url);
    await pages.requestEmailCode(tk, s.customer.email, req);
    const code = /(\d{6})/.exec(t.app.get(CheckoutMailFallback).messages.filter((m) => m.refs?.checkout_session === session.id)[0].text)![1];
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await expect(pages.verifyEmailCode(tk, wrong, req)).rejects.toMatchObject({ code: 'email_code_invalid' });
    await expect(pages.verifyEmailCode(tk, code, req)).rejects.toMatchObject({ code: 'email_code_attempts_exceeded' });
    await pages.requestEmailCode(tk, s.customer.email, req);
    const fresh = /(\d{6})/.exec(t.app.get(CheckoutMailFallback).messages.filter((m) => m.refs?.checkout_session === session.id)[1].text)![1];
    t.clock.set(new Date(t.clock.now().getTime() + 11 * 60_000));
    try {
      await expect(pages.verifyEmailCode(tk, fresh, req)).rejects.toMatchObject({ code: 'email_code_expired' });
    } finally {
      t.clock.set(new Date(t.clock.now().getTime() - 11 * 60_000));
    }
  });
});

describe('no input gets a 5xx', () => {
  const JUNK: unknown[] = [null, 0, -1, 1.5, '', 'x'.repeat(3000), [], [1, 'a'], {}, { $gt: '' }, true, { gateway_a: [1] }, ['ZZ', 1], [{ key: 1 }], '2026-13-45'];
  test('a valid session, payment link and storefront body with one field junked: 4xx or 200, never 5xx', async () => {
    const s = await billingSetup(api());
    const bodies: Array<[string, Record<string, unknown>]> = [
      ['/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }], payment_methods: { gateway_a: ['card'] }, discounts: [], subscription_settings: { trial_days: 3 }, after_completion: { type: 'hosted' }, consent: { acceptance_required: true }, custom_fields: [{ key: 'k', label: 'K' }], shipping_address_collection: true, shipping_address_countries: ['CO'], invoicing: { enabled: true }, meta_data: { a: 'b' }, expires_at: '2026-11-24T09:00:00Z', locale: 'en', cta_text: 'Pagar', currency: 'COP', description: 'd', internal_reference_id: 'r' }],
      ['/v1/payment_links', { items: [{ price: s.monthly.id }], usage_limit: 3, cta_text: 'Pagar', subscription_settings: { duration: 3 }, payment_methods: { gateway_a: ['card'] }, meta_data: { a: 'b' } }],
      ['/v1/storefronts', { name: 'Tienda', items: [{ price: s.monthly.id }], cta_text: 'Pagar' }],
      ['/v1/coupons', { code: 'JUNKTEST', percent: '5', max_redemptions: 3, valid_until: '2027-01-01T00:00:00Z' }],
    ];
    for (const [path, body] of bodies) {
      for (const field of Object.keys(body)) {
        for (const value of JUNK) {
          const res = await api().post(path, { ...body, [field]: value });
          if (res.status >= 500) throw new Error(`${path} ${field}=${JSON.stringify(value)} → ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
  });
});
