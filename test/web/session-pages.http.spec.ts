import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { csrfOf, openSession, partsOf } from '../support/hosted-page.js';
import { billingSetup } from '../support/billing-fixtures.js';

/** Issue 10 §2: the checkout session page over HTTP — the token's way in, details enforced on the page, PSE and the merchant's return address. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Ana')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);


test('the token: a boot page with one same-origin script, then an HttpOnly cookie for this session only', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
  const { boot, opened, page, path } = await openSession(t, session.url);
  expect(boot.status).toBe(200);
  expect(boot.text).toContain('<script src="/checkout/assets/session.js"></script>');
  expect(boot.text).not.toMatch(/<script>[^<]/); // nothing inline
  expect(boot.headers['content-security-policy']).toContain("script-src 'self'");
  expect(opened.status).toBe(303);
  expect(opened.headers.location).toBe(path);
  expect(String(opened.headers['set-cookie'])).toMatch(new RegExp(`cs_token=.*Path=${path}.*HttpOnly`, 'i'));
  expect(page.status).toBe(200);
  expect(page.text).toContain('Finalizar compra');
  expect(page.text).toContain('$ 49.900');
  expect(page.text).toContain('Cada mes');
  const script = await request(t.app.getHttpServer()).get('/checkout/assets/session.js');
  expect(script.headers['content-type']).toMatch(/javascript/);
});

test("another session's token, or a tampered one, gets the error page and nothing of the session", async () => {
  const s = await billingSetup(api());
  const a = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const b = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const foreign = await openSession(t, `${a.url.split('#')[0]}#${partsOf(b.url).token}`);
  expect(foreign.opened.status).toBe(404);
  expect(foreign.opened.text).toContain('Página no encontrada');
  expect(foreign.opened.text).not.toContain('10.000');
  const tampered = await openSession(t, `${a.url}x`);
  expect(tampered.opened.status).toBe(404);
  expect(tampered.page.text).not.toContain('10.000'); // still the boot page
});

test('consent, a required custom field and the shipping country are enforced on the page, then recorded', async () => {
  const s = await billingSetup(api());
  const session = (
    await api().post('/v1/checkout_session', {
      mode: 'payment',
      customer: s.customer.id,
      items: [{ price: s.setupFee.id }],
      consent: { acceptance_required: true, terms_of_service: true },
      custom_fields: [{ key: 'dedicatoria', label: 'Dedicatoria', required: true }],
      shipping_address_collection: true,
      shipping_address_countries: ['CO'],
    })
  ).body;
  const { browser, page, path } = await openSession(t, session.url);
  expect(page.text).toContain('Acepto los términos y condiciones');
  expect(page.text).toContain('<label for="cf_dedicatoria">Dedicatoria</label>');
  expect(page.text).toContain('<option value="CO"');
  const card = { method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '123' };
  const ship = { ship_address_1: 'Cra 7 # 71-21', ship_city: 'Bogotá', ship_state: 'DC', ship_country: 'CO' };
  // Refused: back to the page (303), which says why.
  expect((await browser.post(`${path}/pay`).type('form').send({ ...card, ...ship, cf_dedicatoria: 'Para Ana', _csrf: csrfOf(page.text) })).status).toBe(303);
  const noConsent = await browser.get(path);
  expect(noConsent.text).toContain('Debes aceptar las condiciones');
  expect((await browser.post(`${path}/pay`).type('form').send({ ...card, ...ship, consent_terms: 'yes', _csrf: csrfOf(noConsent.text) })).status).toBe(303);
  const noField = await browser.get(path);
  expect(noField.text).toContain('Completa los campos obligatorios');
  const paid = await browser.post(`${path}/pay`).set('User-Agent', 'page-test/1.0').type('form').send({ ...card, ...ship, consent_terms: 'yes', cf_dedicatoria: 'Para Ana', _csrf: csrfOf(noField.text) });
  expect(paid.status).toBe(303);
  expect((await browser.get(path)).text).toContain('¡Gracias por tu compra!');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({
    status: 'complete',
    payment_status: 'paid',
    consent: expect.objectContaining({ terms_of_service: true, user_agent: 'page-test/1.0', ip_address: expect.any(String) }),
    custom_fields: [expect.objectContaining({ key: 'dedicatoria', value: 'Para Ana' })],
    shipping_address: expect.objectContaining({ country: 'CO', city: 'Bogotá' }),
  });
});

test("PSE on the session page: the bank, back to the session, then on to the merchant's redirect_url_approved", async () => {
  const s = await billingSetup(api());
  const session = (
    await api().post('/v1/checkout_session', {
      mode: 'payment',
      customer: s.customer.id,
      items: [{ price: s.setupFee.id }],
      after_completion: { type: 'redirect', redirect_url_approved: 'https://m.example/ok', redirect_url_processing: 'https://m.example/wait' },
    })
  ).body;
  const { browser, page, path } = await openSession(t, session.url);
  expect(page.headers['content-security-policy']).toContain('form-action \'self\' https://m.example');
  const started = await browser.post(`${path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(page.text) });
  expect(started.status).toBe(303);
  const bankPath = new URL(started.headers.location).pathname;
  expect(bankPath).toMatch(/^\/checkout\/sim\/gateway_\w\/pse\/ch_/);
  const bank = await browser.get(bankPath);
  const approved = await browser.post(bankPath).type('form').send({ decision: 'approve', _csrf: csrfOf(bank.text) });
  expect(approved.status).toBe(303);
  expect(approved.headers.location).toBe(path);
  const back = await browser.get(path);
  expect(back.status).toBe(303);
  expect(back.headers.location).toBe('https://m.example/ok');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
});
