import request from 'supertest';
import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import { csrfOf } from '../support/hosted-page.js';
import { feed, lastEventId } from '../support/subscription-helpers.js';
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

/** A visitor of the link gets a session (as the link page's form does), identifies with a new e-mail; returns the session's token. */
async function visitor(linkId: string) {
  const opened = await pages.openPaymentLink(linkId, req);
  const tk = tokenOf(opened.url);
  const email = `holder.${++n}.${Date.now()}@example.com`;
  await pages.requestEmailCode(tk, email, req);
  await pages.createCustomer(tk, { email, name: 'Visitante' }, req);
  return { session: opened.session, tk };
}

/** Real time passes beyond every session's expires_at (24 h by default) and the due deadlines run; the clock is put back after. */
async function pastEveryExpiry(check: () => Promise<void>) {
  t.clock.advanceMs(25 * 3_600_000);
  try {
    await t.runDue();
    await check();
  } finally {
    t.clock.advanceMs(-25 * 3_600_000);
  }
}

describe('a payment link use and a coupon redemption count when paid, held while the session is paid, given back when it ends unpaid', () => {
  test('limit 1: declined then approved in the same session → paid, times_used 1, the link then used up', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], usage_limit: 1 })).body;
    const a = await visitor(link.id);
    expect((await pages.pay(a.tk, { payment_information: card('insufficientFunds') }, req)).status).toBe('declined');
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(0);
    const paid = await pages.pay(a.tk, { payment_information: card() }, req);
    expect(paid.status).toBe('complete');
    expect((await api().get(`/v1/checkout_session/${a.session}`)).body.payment_status).toBe('paid');
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(1);
    expect((await pages.paymentLink(link.id)).closed_reason).toBe('used_up');
    await expect(pages.openPaymentLink(link.id, req)).rejects.toMatchObject({ code: 'payment_link_used_up' });
  });

  test('limit 1: a declined session holds the use until it expires unpaid; then the link can be used (and paid) again', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], usage_limit: 1 })).body;
    const a = await visitor(link.id);
    const b = await visitor(link.id);
    expect((await pages.pay(a.tk, { payment_information: card('insufficientFunds') }, req)).status).toBe('declined');
    // Held by a's open payment: b cannot take the only use meanwhile.
    await expect(pages.pay(b.tk, { payment_information: card() }, req)).rejects.toMatchObject({ code: 'payment_link_used_up' });
    await pastEveryExpiry(async () => {
      expect((await api().get(`/v1/checkout_session/${a.session}`)).body.status).toBe('expired');
      const link1 = (await api().get(`/v1/payment_links/${link.id}`)).body;
      expect(link1).toMatchObject({ times_used: 0, usage_limit: 1 });
      expect((await pages.paymentLink(link.id)).closed_reason).toBe(null);
    });
    const c = await visitor(link.id);
    expect((await pages.pay(c.tk, { payment_information: card() }, req)).status).toBe('complete');
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(1);
  });

  test('coupon max_redemptions 1: a session that expires unpaid gives its redemption back; the next session redeems it', async () => {
    const s = await billingSetup(api());
    const code = newCode();
    const coupon = (await api().post('/v1/coupons', { code, amount: '2000', currency: 'COP', max_redemptions: 1 })).body;
    const first = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], discounts: [{ code }] })).body;
    expect((await pages.pay(tokenOf(first.url), { payment_information: card('insufficientFunds') }, req)).status).toBe('declined');
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(0);
    await pastEveryExpiry(async () => {
      expect((await api().get(`/v1/checkout_session/${first.id}`)).body.status).toBe('expired');
    });
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(0);
    const next = await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], discounts: [{ code }] });
    expect(next.status).toBe(200);
    const paid = await pages.pay(tokenOf(next.body.url), { payment_information: card() }, req);
    expect(paid.status).toBe('complete');
    expect(paid.session.total).toBe('8000.00');
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    // Used up now: a further session is refused the code.
    expect((await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], discounts: [{ code }] })).body.error).toMatchObject({ code: 'coupon_used_up', param: 'discounts[0][code]' });
  });

  test('two payers at once for a limit-1 link: exactly one paid', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], usage_limit: 1 })).body;
    const payers = [await visitor(link.id), await visitor(link.id)];
    const results = await Promise.allSettled(payers.map((p) => pages.pay(p.tk, { payment_information: card() }, req)));
    expect(results.filter((r) => r.status === 'fulfilled' && r.value.status === 'complete')).toHaveLength(1);
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(refused.map((r) => (r.reason as { code: string }).code)).toEqual(['payment_link_used_up']);
    const sessions = await Promise.all(payers.map(async (p) => (await api().get(`/v1/checkout_session/${p.session}`)).body.payment_status));
    expect(sessions.sort()).toEqual(['paid', 'unpaid']);
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(1);
  });
});

describe('opening a payment link writes nothing; the session is made when the customer starts paying', () => {
  test('GET and HEAD of /pl/<id>, several times: the link page, no event, no session; its form then makes the session, which is paid', async () => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id, quantity: 2 }], usage_limit: 1 })).body;
    const path = new URL(link.url).pathname;
    expect(path).toBe(`/checkout/pl/${link.id}`);
    const before = await lastEventId(api());
    const browser = request.agent(t.app.getHttpServer());
    let page!: request.Response;
    for (let i = 0; i < 3; i++) {
      page = await browser.get(path);
      expect(page.status).toBe(200);
    }
    const preview = await request(t.app.getHttpServer()).get(path).set('User-Agent', 'Slackbot-LinkExpanding 1.0');
    expect(preview.status).toBe(200);
    expect((await request(t.app.getHttpServer()).head(path)).status).toBe(200);
    expect(page.text).toContain('Compra en Tienda Ana');
    expect(page.text).toContain(s.product.name);
    expect(page.text).toContain('$ 20.000');
    expect(page.text).toContain(`action="/checkout/pl/${link.id}"`);
    expect(page.text).toMatch(/<button type="submit">Pagar<\/button>/);
    expect(await feed(api(), before)).toEqual([]);
    expect((await api().get(`/v1/checkout_session?payment_link=${link.id}`)).body.data).toEqual([]);
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(0);
    // The form without its CSRF token is refused, and writes nothing either.
    expect((await request(t.app.getHttpServer()).post(path).type('form').send({ locale: 'es-CO' })).status).toBe(403);
    expect(await feed(api(), before)).toEqual([]);
    // The customer starts: a session of the link, and on to its page.
    const started = await browser.post(path).type('form').send({ _csrf: csrfOf(page.text), locale: 'es-CO' });
    expect(started.status).toBe(303);
    expect(started.headers.location).toMatch(/\/checkout\/cs\/cs_[^#]+#.+/);
    const sessions = (await api().get(`/v1/checkout_session?payment_link=${link.id}`)).body.data;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ status: 'open', payment_link: link.id, total: '20000.00' });
    const tk = tokenOf(started.headers.location);
    const email = `starter.${Date.now()}@example.com`;
    await pages.requestEmailCode(tk, email, req);
    await pages.createCustomer(tk, { email, name: 'Visitante' }, req);
    expect((await pages.pay(tk, { payment_information: card() }, req)).status).toBe('complete');
    expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(1);
    // Used up: the page (GET) and its form (POST) both answer the closed page.
    const closed = await browser.get(path);
    expect(closed.status).toBe(410);
    expect(closed.text).toContain('Este enlace de pago ya no está disponible');
    expect((await browser.post(path).type('form').send({ _csrf: csrfOf(page.text) })).status).toBe(410);
  });
});
