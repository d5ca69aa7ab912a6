import { startTestApp, type TestApp } from '../support/test-app.js';
import { csrfOf, openSession } from '../support/hosted-page.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { feed, lastEventId } from '../support/subscription-helpers.js';

/**
 * Issue 10 §2: choices on the checkout session page over plain HTML forms (no script after the
 * token's first step) — the customer's saved cards beside a new card, a typed coupon removed.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Ana')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);


test('the first step explains in <noscript> why it needs JavaScript; every later page has no script and posts plain forms', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', items: [{ price: s.setupFee.id }] })).body;
  const { boot, page, path } = await openSession(t, session.url);
  expect(boot.text).toMatch(/<noscript><p>Este primer paso necesita JavaScript[^<]*signo #[^<]*los pasos siguientes funcionan sin JavaScript/);
  expect(page.text).not.toContain('<script');
  expect(page.text).toContain(`<form method="post" action="${path}/email">`);
  expect(page.text).toContain(`<form method="post" action="${path}/coupon">`);
});

test("the customer's saved cards are offered beside a new card (brand capitalised, last four); paying with one charges it and saves nothing new", async () => {
  const s = await billingSetup(api());
  // A card saved by an earlier purchase, and a gateway_b card the session below does not accept.
  await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
  const methods = (await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data;
  expect(methods).toHaveLength(1);
  const pm = methods[0];
  expect(pm.card).toMatchObject({ brand: 'visa', last4: '4242' });
  const other = await billingSetup(api());
  const foreign = (await api().post('/v1/subscriptions', { customer: other.customer.id, items: [{ price: other.monthly.id }], payment_information: card() })).body;

  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], payment_methods: { gateway_a: ['card', 'pse'] } })).body;
  const { browser, path, page } = await openSession(t, session.url);
  expect(page.text).toContain(`<input type="radio" name="method" value="saved:${pm.id}" checked> <span>Visa terminada en 4242</span>`);
  expect(page.text).toContain('<input type="radio" name="method" value="card"> <span>Otra tarjeta de crédito o débito</span>');

  // Another customer's method cannot be named.
  const forgedPost = await browser.post(`${path}/pay`).type('form').send({ method: `saved:${foreign.payment_method}`, _csrf: csrfOf(page.text) });
  expect([forgedPost.status, forgedPost.headers.location]).toEqual([303, path]);
  const forged = await browser.get(path);
  expect(forged.text).toContain('Elige un medio de pago.');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body.status).toBe('open');

  const paid = await browser.post(`${path}/pay`).type('form').send({ method: `saved:${pm.id}`, _csrf: csrfOf(forged.text) });
  expect(paid.status).toBe(303);
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid', payment_method: pm.id });
  expect((await api().get(`/v1/collections/${after.collection}`)).body).toMatchObject({ status: 'paid', payment_method: pm.id });
  expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toHaveLength(1);
});

test('a saved card of a gateway the session does not accept is not offered', async () => {
  const s = await billingSetup(api());
  await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve', 'gateway_b') });
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], payment_methods: { gateway_a: ['card'] } })).body;
  const { page } = await openSession(t, session.url);
  expect(page.text).not.toContain('value="saved:');
  expect(page.text).toContain('<input type="radio" name="method" value="card" checked> <span>Tarjeta de crédito o débito</span>');
});

test('a coupon typed on the page shows a remove button; removing it restores the total (plain form posts)', async () => {
  const s = await billingSetup(api());
  const code = `QUITA${Date.now() % 100000}`;
  await api().post('/v1/coupons', { code, percent: '10' });
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const { browser, path, page } = await openSession(t, session.url);
  expect(page.text).not.toContain('name="action" value="remove"');
  const applied = await browser.post(`${path}/coupon`).type('form').send({ action: 'apply', code, _csrf: csrfOf(page.text) });
  expect(applied.status).toBe(303);
  const withCoupon = await browser.get(path);
  expect(withCoupon.text).toContain(`<input type="hidden" name="action" value="remove"><input type="hidden" name="code" value="${code}">`);
  expect(withCoupon.text).toContain(`Quitar ${code}`);
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body.total).toBe('9000.00');
  const removed = await browser.post(`${path}/coupon`).type('form').send({ action: 'remove', code, _csrf: csrfOf(withCoupon.text) });
  expect(removed.status).toBe(303);
  const back = await browser.get(path);
  expect(back.text).not.toContain('name="action" value="remove"');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ total: '10000.00', discounts: [] });
});

test('offline methods the session names are offered (with a card, or alone); choosing one charges nothing: the session completes processing, the customer gets a reference, and the merchant\'s record of the transfer pays it', async () => {
  const s = await billingSetup(api());
  const bank = 'Transferencia Bancolombia';
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], payment_methods: { gateway_a: ['card'], offline: [bank] } })).body;
  const { browser, path, page } = await openSession(t, session.url);
  expect(page.status).toBe(200);
  expect(page.text).toContain(`value="offline:${bank}"`);
  expect(page.text).toContain(`<span>${bank}</span>`);
  expect(page.text).toContain('value="card"');
  const chosen = await browser.post(`${path}/pay`).type('form').send({ method: `offline:${bank}`, _csrf: csrfOf(page.text) });
  expect(chosen.status).toBe(303);
  // Awaiting the transfer: complete (the customer chose to pay by transfer) and processing, nothing charged, the reference and what to do in Spanish.
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid).toMatchObject({ status: 'complete', payment_status: 'processing', completed_at: expect.any(String), last_payment: expect.objectContaining({ status: 'processing', additional_data: expect.objectContaining({ type: 'instructions', method: bank }) }) });
  const reference = mid.last_payment.additional_data.reference as string;
  expect((await api().get(`/v1/collections/${mid.collection}`)).body).toMatchObject({ status: 'processing', payment_method_type: bank });
  const waiting = await browser.get(path);
  expect(waiting.status).toBe(200);
  expect(waiting.text).toContain(`Paga $ 10.000 por ${bank} indicando esta referencia`);
  expect(waiting.text).toContain(`<code>${reference}</code>`);
  expect(waiting.text).not.toContain(`action="${path}/pay"`);
  expect(waiting.text).not.toMatch(/quoting|Pay \d/);

  // The transfer arrives: the merchant records it (paid out of band) and the session is paid.
  const before = await lastEventId(api());
  const recorded = await api().post(`/v1/collections/${mid.collection}/pay`, { paid_out_of_band: true });
  expect(recorded.status).toBe(200);
  expect(recorded.body).toMatchObject({ status: 'paid' });
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const events = (await feed(api(), before)).filter((e) => /^(checkout_session|collection)\./.test(e.type));
  expect(events.map((e) => e.type)).toEqual(['collection.paid']);
  expect((await browser.get(path)).text).toContain('Gracias');

  // Offline alone, in subscription mode: the only method offered; confirmed, the subscription is active.
  const only = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }], payment_methods: { offline: [bank] } })).body;
  const second = await openSession(t, only.url);
  expect(second.page.text).toContain(`value="offline:${bank}"`);
  expect(second.page.text).not.toContain('value="card"');
  expect((await second.browser.post(`${second.path}/pay`).type('form').send({ method: `offline:${bank}`, _csrf: csrfOf(second.page.text) })).status).toBe(303);
  const sub = (await api().get(`/v1/checkout_session/${only.id}`)).body;
  expect(sub).toMatchObject({ status: 'complete', payment_status: 'processing', subscription: expect.stringMatching(/^sub_/) });
  expect((await api().get(`/v1/subscriptions/${sub.subscription}`)).body.status).toBe('incomplete');
  expect((await api().post(`/v1/collections/${sub.collection}/pay`, { paid_out_of_band: true })).status).toBe(200);
  expect((await api().get(`/v1/subscriptions/${sub.subscription}`)).body.status).toBe('active');
  expect((await api().get(`/v1/checkout_session/${only.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
});
