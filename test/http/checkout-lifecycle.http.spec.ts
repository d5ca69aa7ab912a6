import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, decliningMethod } from '../support/lifecycle.js';
import { feed, lastEventId } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Checkout sessions over time and across payment kinds: expiry (test clock and real time), setup, asynchronous methods. */
let t: TestApp;
let key: string;
let pages: HostedCheckout;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  pages = t.app.get(HostedCheckout);
});
afterAll(() => t.close());

const api = () => t.as(key);
const req = { ip_address: '203.0.113.7', user_agent: 'jest' };
const tokenOf = (url: string) => url.split('#')[1];

test('expires_at passes on a test clock: expired, checkout_session.expired, and the session can no longer be paid', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-03-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], expires_at: '2026-03-01T11:00:00.000Z' })).body;
  expect(session).toMatchObject({ status: 'open', expires_at: '2026-03-01T11:00:00.000Z', created_date: '2026-03-01T10:00:00.000Z' });
  const before = await lastEventId(api());
  await advance(api(), clock.id, '2026-03-01T10:59:00.000Z');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body.status).toBe('open');
  await advance(api(), clock.id, '2026-03-01T12:00:00.000Z');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'expired', expired_at: '2026-03-01T11:00:00.000Z' });
  const events = (await feed(api(), before)).filter((e) => e.type.startsWith('checkout_session.'));
  expect(events.map((e) => e.type)).toEqual(['checkout_session.expired']);
  expect(events[0].data.object).toMatchObject({ id: session.id, status: 'expired' });
  await expect(pages.pay(tokenOf(session.url), { payment_information: card() }, req)).rejects.toMatchObject({ code: 'checkout_token_expired' });
});

test('real time: the scheduler expires a session at expires_at; the expire operation expires one at once', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], expires_at: new Date(t.clock.now().getTime() + 30 * 60_000).toISOString() })).body;
  const other = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  t.clock.advanceMs(31 * 60_000);
  try {
    await t.runDue();
    expect((await api().get(`/v1/checkout_session/${session.id}`)).body.status).toBe('expired');
    expect((await api().get(`/v1/checkout_session/${other.id}`)).body.status).toBe('open');
  } finally {
    t.clock.advanceMs(-31 * 60_000);
  }
  const expired = await api().post(`/v1/checkout_session/${other.id}/expire`);
  expect(expired.body).toMatchObject({ id: other.id, status: 'expired' });
  const again = await api().post(`/v1/checkout_session/${other.id}/expire`);
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('invalid_state');
});

test('mode setup with setup_subscription_id: the card of a past_due subscription is replaced and its open collection recovered', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-01-10T10:00:00.000Z');
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  const declining = await decliningMethod(api(), customer.id);
  await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id });
  await advance(api(), clock.id, '2026-02-10T10:00:00.000Z');
  const pastDue = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(pastDue.status).toBe('past_due');

  const session = (await api().post('/v1/checkout_session', { mode: 'setup', setup_subscription_id: sub.id })).body;
  expect(session).toMatchObject({ mode: 'setup', customer: customer.id, total: '0.00', subtotal: '0.00', items: [], payment_status: 'no_payment_required', setup_subscription_id: sub.id });
  const outcome = await pages.pay(tokenOf(session.url), { payment_information: card('approve', 'gateway_b') }, req);
  expect(outcome.status).toBe('complete');
  const after = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(after.status).toBe('active');
  expect(after.payment_method).toMatch(/^pm_/);
  expect(after.payment_method).not.toBe(declining.id);
  expect((await api().get(`/v1/collections/${pastDue.latest_collection}`)).body.status).toBe('paid');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'no_payment_required', payment_method: after.payment_method });
});

test('mode setup without a subscription saves a card without charging; a pse method is refused', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'setup', customer: s.customer.id })).body;
  await expect(pages.pay(tokenOf(session.url), { payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' } }, req)).rejects.toMatchObject({ code: 'payment_method_not_allowed' });
  expect((await pages.pay(tokenOf(session.url), { payment_information: card() }, req)).status).toBe('complete');
  expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toHaveLength(1);
  expect((await api().get(`/v1/charges?customer=${s.customer.id}`)).body.data).toHaveLength(0);
});

test('an asynchronous method (pse): the session completes processing (before its collection is made); when the bank settles, it is paid', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], after_completion: { type: 'redirect', redirect_url_approved: 'https://m.example/ok', redirect_url_processing: 'https://m.example/wait' } })).body;
  const before = await lastEventId(api());
  const outcome = await pages.pay(tokenOf(session.url), { payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' } }, req);
  expect(outcome).toMatchObject({ status: 'processing', redirect_url: 'https://m.example/wait', additional_data: { redirect_url: expect.stringContaining('/pse/') } });
  // Awaiting the bank: complete (the customer paid by the bank's page), payment_status processing.
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid).toMatchObject({ status: 'complete', payment_status: 'processing', collection: expect.stringMatching(/^col_/) });
  const paying = (await feed(api(), before)).map((e) => e.type);
  expect(paying).toEqual(['checkout_session.completed', 'collection.created', 'transaction.created', 'charge.created', 'charge.pending']);
  const settling = await lastEventId(api());
  await api().post(`/v1/test_helpers/collections/${mid.collection}/settle`);
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const events = await feed(api(), settling);
  expect(events.map((e) => e.type)).toEqual(['charge.paid', 'collection.paid']);
  expect((await pages.completion(tokenOf(session.url))).redirect_url).toBe('https://m.example/ok');
});

test('consent, custom fields, shipping and an ntp amount are enforced and recorded', async () => {
  const s = await billingSetup(api());
  const ntp = (await api().post('/v1/prices', { product_id: s.product.id, type: 'one_time', pricing_model: 'ntp', ntp_pricing: { min_amount: '10000', max_amount: '500000' } })).body;
  expect(ntp.id).toMatch(/^price_/);
  const session = (
    await api().post('/v1/checkout_session', {
      mode: 'payment',
      customer: s.customer.id,
      items: [{ price: ntp.id }],
      cta_text: 'Donar',
      consent: { acceptance_required: true, terms_of_service: true },
      custom_fields: [{ key: 'dedicatoria', label: 'Dedicatoria', required: true }],
      shipping_address_collection: true,
      shipping_address_countries: ['CO'],
      shipping_cost: true,
      shipping_amount: '8000',
    })
  ).body;
  const tk = tokenOf(session.url);
  const pay = (extra: object) => pages.pay(tk, { payment_information: card(), ...extra }, req);
  await expect(pay({})).rejects.toMatchObject({ code: 'consent_required' });
  await expect(pay({ consent: { terms_of_service: true } })).rejects.toMatchObject({ code: 'custom_field_required' });
  await expect(pay({ consent: { terms_of_service: true }, custom_fields: { dedicatoria: 'Para Ana' } })).rejects.toMatchObject({ code: 'shipping_address_required' });
  await expect(pages.saveDetails(tk, { shipping_address: { address_1: 'Calle 1', city: 'Quito', state: 'P', country: 'EC' } }, req)).rejects.toMatchObject({ code: 'shipping_country_not_allowed' });
  await expect(pages.saveDetails(tk, { ntp_amount: '5000' }, req)).rejects.toMatchObject({ param: 'ntp_amount' });
  const saved = await pages.saveDetails(tk, { ntp_amount: '25000', shipping_address: { address_1: 'Cra 7 # 71-21', city: 'Bogotá', state: 'DC', country: 'co' } }, req);
  expect(saved).toMatchObject({ total: '33000.00', shipping_amount: '8000.00', cta_text: 'Donar' });
  const done = await pay({ consent: { terms_of_service: true }, custom_fields: { dedicatoria: 'Para Ana' } });
  expect(done.status).toBe('complete');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({
    consent: { acceptance_required: true, terms_of_service: true, ip_address: '203.0.113.7', user_agent: 'jest' },
    custom_fields: [expect.objectContaining({ key: 'dedicatoria', value: 'Para Ana' })],
    shipping_address: expect.objectContaining({ country: 'CO', city: 'Bogotá' }),
    total: '33000.00',
  });
  expect((await api().get(`/v1/collections/${after.collection}`)).body).toMatchObject({ total: '33000.00', status: 'paid' });
});

test('a coupon typed on the page is applied, removable, and redeemed once at payment', async () => {
  const s = await billingSetup(api());
  const code = `PAGE${Date.now() % 100000}`;
  const coupon = (await api().post('/v1/coupons', { code, percent: '10', max_redemptions: 1 })).body;
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
  const tk = tokenOf(session.url);
  await expect(pages.applyCoupon(tk, 'NOPE', req)).rejects.toMatchObject({ code: 'coupon_invalid', param: 'code' });
  expect((await pages.applyCoupon(tk, code.toLowerCase(), req))).toMatchObject({ total: '44910.00', discounts: [expect.objectContaining({ code, amount_off: '4990.00' })] });
  expect((await pages.removeCoupon(tk, code, req)).total).toBe('49900.00');
  await pages.applyCoupon(tk, code, req);
  expect((await pages.pay(tk, { payment_information: card() }, req)).status).toBe('complete');
  expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
  const sub = (await api().get(`/v1/subscriptions/${(await api().get(`/v1/checkout_session/${session.id}`)).body.subscription}`)).body;
  expect(sub.discounts).toEqual([expect.objectContaining({ code, percent: '10' })]);
  const other = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
  await expect(pages.applyCoupon(tokenOf(other.url), code, req)).rejects.toMatchObject({ code: 'coupon_used_up' });
});

/**
 * The session's states and events (the spec's table and its order on paying): the gateway is asked
 * first (the attempt recorded on the session before), then, approved, `checkout_session.completed`
 * (paid) comes first, then what the session sells is made — `subscription.created`,
 * `collection.created` — and the charge recorded on it: `charge.paid`, `collection.paid`,
 * `subscription.activated`. A decline makes nothing: `checkout_session.payment_failed`, the session
 * open. Exactly the feed, every type.
 */
describe('a session\'s events, exactly, from /v1/events', () => {
  // Every type but the test clock's own (advancing, ready).
  const types = async (before: string | undefined) => (await feed(api(), before)).map((e) => e.type).filter((type) => !type.startsWith('test_clock.'));

  test('subscription mode, approved first try: completed (paid), subscription.created, collection.created, the charge, collection.paid, subscription.activated; complete is final', async () => {
    const s = await billingSetup(api());
    const { clock, customer } = await clockAndCustomer(api(), '2026-09-01T10:00:00.000Z');
    const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }] })).body;
    const before = await lastEventId(api());
    expect((await pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).status).toBe('complete');
    const events = await feed(api(), before);
    expect(events.map((e) => e.type)).toEqual([
      'checkout_session.completed',
      'subscription.created',
      'collection.created',
      'transaction.created',
      'charge.created',
      'charge.paid',
      'collection.paid',
      'payment_method.created',
      'customer.updated',
      'subscription.activated',
      'subscription.updated',
    ]);
    const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
    expect(events[0].data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid', subscription: after.subscription, collection: after.collection, payment_method: after.payment_method });
    expect(after).toMatchObject({ status: 'complete', payment_status: 'paid', payment_method: expect.stringMatching(/^pm_/) });
    expect(events[1].data.object).toMatchObject({ id: after.subscription });
    expect(events[2].data.object).toMatchObject({ id: after.collection });
    // One charge, its id the attempt's (the gateway's idempotency key).
    expect((await api().get(`/v1/charges?collection=${after.collection}`)).body.data.map((c: { status: string }) => c.status)).toEqual(['succeeded']);
    // Nothing happens at expires_at: a complete session does not expire.
    const atEnd = await lastEventId(api());
    await advance(api(), clock.id, '2026-09-02T11:00:00.000Z');
    expect((await feed(api(), atEnd)).filter((e) => e.type.startsWith('checkout_session.'))).toEqual([]);
    expect((await api().get(`/v1/checkout_session/${session.id}`)).body.status).toBe('complete');
  });

  test('payment mode, approved first try: completed (paid), collection.created, the charge, collection.paid', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
    const before = await lastEventId(api());
    expect((await pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).status).toBe('complete');
    const events = await feed(api(), before);
    expect(events.map((e) => e.type)).toEqual(['checkout_session.completed', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid', 'payment_method.created', 'customer.updated']);
    const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
    expect(events[0].data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid', collection: after.collection });
    expect(after).toMatchObject({ status: 'complete', payment_status: 'paid', subscription: null, collection: expect.stringMatching(/^col_/) });
  });

  test('declined, then approved: checkout_session.payment_failed (nothing made, the session open), then completed (paid) before collection.created', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
    const before = await lastEventId(api());
    const declined = await pages.pay(tokenOf(session.url), { payment_information: card('decline') }, req);
    expect(declined).toMatchObject({ status: 'declined', retry_allowed: true, session: { status: 'open', payment_status: 'unpaid' } });
    const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
    expect(mid).toMatchObject({ status: 'open', payment_status: 'unpaid', completed_at: null, collection: null, subscription: null, last_payment: expect.objectContaining({ status: 'declined', failure_code: 'card_declined', decline_code: 'generic_decline' }) });
    const failed = await feed(api(), before);
    expect(failed.map((e) => e.type)).toEqual(['checkout_session.payment_failed']);
    expect(failed[0].data.object).toMatchObject({ id: session.id, status: 'open', payment_status: 'unpaid', last_payment: { status: 'declined', failure_code: 'card_declined', message: 'The card was declined.' } });
    expect((await api().get(`/v1/collections?customer=${s.customer.id}`)).body.data).toHaveLength(0);
    const retried = await lastEventId(api());
    expect((await pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).status).toBe('complete');
    expect(await types(retried)).toEqual(['checkout_session.completed', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid', 'payment_method.created', 'customer.updated']);
    const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
    expect((await api().get(`/v1/charges?customer=${s.customer.id}`)).body.data.map((c: { status: string; collection: string }) => [c.status, c.collection])).toEqual([['succeeded', after.collection]]);
  });

  test('declined, then expired: payment_failed, then checkout_session.expired; no subscription or collection was ever made', async () => {
    const s = await billingSetup(api());
    const { clock, customer } = await clockAndCustomer(api(), '2026-09-01T10:00:00.000Z');
    const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }] })).body;
    const before = await lastEventId(api());
    expect((await pages.pay(tokenOf(session.url), { payment_information: card('decline') }, req)).status).toBe('declined');
    await advance(api(), clock.id, '2026-09-02T11:00:00.000Z');
    expect(await types(before)).toEqual(['checkout_session.payment_failed', 'checkout_session.expired']);
    expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'expired', payment_status: 'unpaid', subscription: null, collection: null });
    expect((await api().get(`/v1/subscriptions?customer=${customer.id}`)).body.data).toHaveLength(0);
  });

  test('setup mode: the method saved completes the session (no_payment_required); nothing is charged', async () => {
    const s = await billingSetup(api());
    const session = (await api().post('/v1/checkout_session', { mode: 'setup', customer: s.customer.id })).body;
    const before = await lastEventId(api());
    expect((await pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).status).toBe('complete');
    const events = (await feed(api(), before)).filter((e) => /^(checkout_session|subscription|collection)\./.test(e.type));
    expect(events.map((e) => e.type)).toEqual(['checkout_session.completed']);
    expect(events[0].data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'no_payment_required', payment_method: expect.stringMatching(/^pm_/) });
  });
});
