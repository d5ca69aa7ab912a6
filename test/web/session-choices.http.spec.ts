import { startTestApp, type TestApp } from '../support/test-app.js';
import { csrfOf, openSession } from '../support/hosted-page.js';
import { billingSetup, card } from '../support/billing-fixtures.js';

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
  const forged = await browser.post(`${path}/pay`).type('form').send({ method: `saved:${foreign.payment_method}`, _csrf: csrfOf(page.text) });
  expect(forged.status).toBe(400);
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
