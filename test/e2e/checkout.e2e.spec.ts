import { jest } from '@jest/globals';
import type { Page } from 'playwright-core';
import { formatDate } from '#web/format.js';
import { billingSetup } from '../support/billing-fixtures.js';
import { crawlLinks, describeBroken, type CrawlFetch } from '../support/link-crawler.js';
import { advance, clockAndCustomer, decliningMethod } from '../support/lifecycle.js';
import { outboxFor } from '../support/outbox.js';
import { feed, lastEventId } from '../support/subscription-helpers.js';
import { type E2E, startE2E } from './browser.js';

/** Issue 10 §5: the hosted checkout in real headless Chromium (sessions, payment links, storefronts). */
jest.setTimeout(180_000);

let e: E2E;
let key: string;
beforeAll(async () => {
  e = await startE2E();
  key = (await e.t.account('Tienda Ana')).test_key;
});
afterAll(() => e?.close());

const api = () => e.t.as(key);
let seq = 0;
const newEmail = () => `e2e.${Date.now()}.${++seq}@example.com`;

/** The browser's own requests (its cookies), for the link crawler: GET without following redirects. */
const browserFetch = (page: Page): CrawlFetch => async (path) => {
  const res = await page.context().request.get(e.base + path, { maxRedirects: 0 });
  const type = res.headers()['content-type'] ?? '';
  return { status: res.status(), location: res.headers().location ?? null, html: type.includes('text/html') ? await res.text() : '' };
};

/** Every link of the page the browser is on opens a page (its language switch included). */
async function linksOpen(page: Page) {
  const here = new URL(page.url());
  const crawl = await crawlLinks(browserFetch(page), [here.pathname + here.search], { within: (p) => p.startsWith('/checkout'), accept: (p, status) => status === 410 && p.startsWith('/checkout/pl/') }, e.base);
  expect(describeBroken(crawl.broken)).toEqual([]);
  return crawl;
}

async function heading(page: Page, text: string) {
  await page.locator('h1', { hasText: text }).waitFor({ timeout: 30_000 });
  expect((await page.locator('h1').first().textContent())?.trim()).toBe(text);
}

async function payWithCard(page: Page, number: string) {
  // A customer with saved cards sees them first: a new card is "Otra tarjeta".
  const another = page.getByLabel('Otra tarjeta de crédito o débito');
  if (await another.count()) await another.check();
  await page.getByLabel('Número de la tarjeta').fill(number);
  await page.getByLabel('Vencimiento (MM/AA)').fill('12/30');
  await page.getByLabel('Código de seguridad (CVC)').fill('123');
  await page.locator('form[action$="/pay"] button[type=submit]').click();
}

/** Identification on the page: a new customer (e-mail, then name), or a known one (e-mail, then the code from the outbox). */
async function identify(page: Page, email: string, known: boolean, sessionId?: string) {
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByRole('button', { name: 'Continuar' }).click();
  if (!known) {
    await page.getByLabel('Nombre completo').waitFor();
    await page.getByLabel('Nombre completo').fill('Camila Rojas');
    await page.getByLabel('Número de documento').fill('1020304050');
    await page.getByRole('button', { name: 'Continuar' }).click();
  } else {
    await page.getByLabel('Código de verificación').waitFor();
    const mails = (await outboxFor(e.t, key, `to=${encodeURIComponent(email)}&kind=checkout.email_code`)).filter((m) => !sessionId || m.refs?.checkout_session === sessionId);
    const code = /(\d{6})/.exec(mails[0].text)![1];
    await page.getByLabel('Código de verificación').fill(code);
    await page.getByRole('button', { name: 'Verificar código' }).click();
  }
  await page.getByText(`Compras como ${email}`).waitFor();
}

test('a subscription bought through a checkout session with an approving card; the events in the spec order (completed, subscription.created, collection.created, collection.paid, subscription.activated)', async () => {
  const s = await billingSetup(api());
  const before = await lastEventId(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).body;
  expect(session.url).toMatch(/\/checkout\/cs\/cs_.*#/);
  const page = await e.page();
  await page.goto(session.url);
  await heading(page, 'Finalizar compra');
  expect(page.url()).not.toContain('#'); // the token left the address bar
  expect(await page.locator('body').textContent()).toContain('$ 49.900');
  await e.shoot(page, 'session-subscription');
  await payWithCard(page, '4242424242424242');
  await heading(page, '¡Gracias por tu compra!');
  await e.shoot(page, 'session-thanks');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const sub = (await api().get(`/v1/subscriptions/${after.subscription}`)).body;
  expect(sub.status).toBe('active');
  // The thank-you page: what was bought, the references, the next charge, where the confirmation goes.
  expect(await page.locator('table.lines tbody').textContent()).toContain(s.product.name);
  expect((await page.locator('[data-fact="total"]').textContent())?.trim()).toBe('$ 49.900 COP');
  expect((await page.locator('[data-fact="subscription"]').textContent())?.trim()).toBe(sub.id);
  expect((await page.locator('[data-fact="collection"]').textContent())?.trim()).toBe(after.collection);
  expect((await page.locator('[data-fact="session"]').textContent())?.trim()).toBe(session.id);
  expect((await page.locator('[data-fact="next"]').textContent())?.trim()).toBe(`${formatDate(sub.next_renewal_date, 'es-CO')}, por $ 49.900 COP`);
  expect(await page.locator('[data-fact="email"]').textContent()).toMatch(/^Tienda Ana la enviará a \w\*+@example\.com$/);
  await linksOpen(page);
  await page.getByRole('link', { name: 'English' }).click();
  await heading(page, 'Thank you for your purchase!');
  expect((await page.locator('[data-fact="next"]').textContent())?.trim()).toBe(`${formatDate(sub.next_renewal_date, 'en')}, for COP 49,900`);
  await e.shoot(page, 'session-thanks-en');
  const order = ['checkout_session.completed', 'subscription.created', 'collection.created', 'collection.paid', 'subscription.activated'];
  expect((await feed(api(), before)).map((x) => x.type).filter((x) => order.includes(x))).toEqual(order);
  await page.close();
});

test('a declined card, then an approving one on the same checkout page', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const page = await e.page();
  await page.goto(session.url);
  await heading(page, 'Finalizar compra');
  await payWithCard(page, '4000000000009995');
  await page.getByRole('alert').filter({ hasText: 'no tiene fondos suficientes' }).waitFor();
  await e.shoot(page, 'session-declined');
  // Post/redirect/get: the browser is on the session's page (a reload re-sends nothing), whose links all open pages.
  expect(new URL(page.url()).pathname).toBe(new URL(session.url).pathname);
  await linksOpen(page);
  await page.getByRole('link', { name: 'English' }).click();
  await page.getByRole('alert').filter({ hasText: 'insufficient funds' }).waitFor();
  await page.reload();
  await page.getByRole('alert').filter({ hasText: 'insufficient funds' }).waitFor();
  await page.getByRole('link', { name: 'Español' }).click();
  await page.getByRole('alert').filter({ hasText: 'no tiene fondos suficientes' }).waitFor();
  await payWithCard(page, '4242424242424242');
  await heading(page, '¡Gracias por tu compra!');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body.payment_status).toBe('paid');
  await page.close();
});

test('a new customer, recognised by an e-mail code on a second purchase', async () => {
  const s = await billingSetup(api());
  const email = newEmail();
  const first = (await api().post('/v1/checkout_session', { mode: 'payment', items: [{ price: s.setupFee.id }] })).body;
  const page = await e.page();
  await page.goto(first.url);
  await heading(page, 'Finalizar compra');
  await e.shoot(page, 'session-identify');
  await identify(page, email, false);
  await payWithCard(page, '4242424242424242');
  await heading(page, '¡Gracias por tu compra!');
  const second = (await api().post('/v1/checkout_session', { mode: 'payment', items: [{ price: s.setupFee.id }] })).body;
  await page.goto(second.url);
  await heading(page, 'Finalizar compra');
  await page.getByLabel('Correo electrónico').fill(email);
  await page.getByRole('button', { name: 'Continuar' }).click();
  await page.getByLabel('Código de verificación').waitFor();
  await e.shoot(page, 'session-code');
  const mails = (await outboxFor(e.t, key, `to=${encodeURIComponent(email)}&kind=checkout.email_code`)).filter((m) => m.refs?.checkout_session === second.id);
  await page.getByLabel('Código de verificación').fill(/(\d{6})/.exec(mails[0].text)![1]);
  await page.getByRole('button', { name: 'Verificar código' }).click();
  await page.getByText(`Compras como ${email}`).waitFor();
  // Recognised: the card saved by the first purchase is offered (and chosen) beside a new card.
  const saved = page.getByLabel('Visa terminada en 4242');
  await saved.waitFor();
  expect(await saved.isChecked()).toBe(true);
  expect(await page.getByLabel('Otra tarjeta de crédito o débito').isChecked()).toBe(false);
  expect(await page.getByLabel('Número de la tarjeta').isVisible()).toBe(false);
  await e.shoot(page, 'session-saved-card');
  await page.locator('form[action$="/pay"] button[type=submit]').click();
  await heading(page, '¡Gracias por tu compra!');
  const [a, b] = await Promise.all([first, second].map(async (x) => (await api().get(`/v1/checkout_session/${x.id}`)).body));
  expect(a.customer).toMatch(/^cus_/);
  expect(b.customer).toBe(a.customer);
  expect(b.payment_method).toBe(a.payment_method);
  expect((await api().get(`/v1/customers/${a.customer}/payment_methods`)).body.data).toHaveLength(1);
  await page.close();
});

test('a payment link with a one-time price, then used up by its usage_limit', async () => {
  const s = await billingSetup(api());
  const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], usage_limit: 1 })).body;
  const before = await lastEventId(api());
  const page = await e.page();
  await page.goto(link.url);
  // The link's page is read from the link: opening it made no session.
  await heading(page, 'Compra en Tienda Ana');
  expect(await page.locator('body').textContent()).toContain('$ 10.000');
  await e.shoot(page, 'link-page');
  await linksOpen(page);
  expect(await feed(api(), before)).toEqual([]);
  await page.getByRole('button', { name: 'Pagar' }).click();
  await heading(page, 'Finalizar compra');
  await identify(page, newEmail(), false);
  await payWithCard(page, '4242424242424242');
  await heading(page, '¡Gracias por tu compra!');
  expect((await api().get(`/v1/payment_links/${link.id}`)).body.times_used).toBe(1);
  await page.goto(link.url);
  await heading(page, 'Este enlace de pago ya no está disponible');
  await e.shoot(page, 'link-used-up');
  await linksOpen(page);
  await page.close();
});

test('a storefront purchase', async () => {
  const s = await billingSetup(api());
  const sf = (await api().post('/v1/storefronts', { name: 'Tienda Ana', items: [{ price: s.monthly.id }, { price: s.setupFee.id }] })).body;
  const page = await e.page();
  await page.goto(sf.url);
  await heading(page, 'Tienda Ana');
  await e.shoot(page, 'storefront');
  await linksOpen(page);
  await page.locator(`form.price-choice:has(input[value="${s.setupFee.id}"]) button`).click();
  await heading(page, 'Finalizar compra');
  await identify(page, newEmail(), false);
  await payWithCard(page, '4242424242424242');
  await heading(page, '¡Gracias por tu compra!');
  // Sessions made at one frozen instant list in no set order: find the storefront's own.
  const sessions = (await api().get('/v1/checkout_session?limit=100')).body.data.filter((x: { storefront: string | null }) => x.storefront === sf.id);
  expect(sessions).toHaveLength(1);
  expect(sessions[0]).toMatchObject({ status: 'complete', payment_status: 'paid' });
  await page.close();
});

test('a setup session replaces the card of a past_due subscription and recovers it', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-01-10T10:00:00.000Z');
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030 } } })).body;
  const declining = await decliningMethod(api(), customer.id);
  await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id });
  await advance(api(), clock.id, '2026-02-10T10:00:00.000Z');
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('past_due');
  const session = (await api().post('/v1/checkout_session', { mode: 'setup', setup_subscription_id: sub.id })).body;
  const page = await e.page();
  await page.goto(session.url);
  await heading(page, 'Finalizar compra');
  await e.shoot(page, 'session-setup');
  await payWithCard(page, '5555555555554444');
  await heading(page, '¡Gracias por tu compra!');
  expect(await page.getByText('Tu medio de pago quedó guardado.').isVisible()).toBe(true);
  const after = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(after.status).toBe('active');
  expect(after.payment_method).not.toBe(declining.id);
  await page.close();
});

test('an expired session shows the expired page; a tampered token the error page', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  expect((await api().post(`/v1/checkout_session/${session.id}/expire`)).status).toBe(200);
  const page = await e.page();
  await page.goto(session.url);
  await page.locator('h1', { hasText: /expir/ }).waitFor();
  await e.shoot(page, 'session-expired');
  expect(await page.locator('form[action$="/pay"]').count()).toBe(0);
  const other = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const [base, token] = other.url.split('#');
  const tampered = `${base}#${token.slice(0, -2)}${token.endsWith('A') ? 'B' : 'A'}x`;
  const p2 = await e.page();
  await p2.goto(tampered);
  await heading(p2, 'Página no encontrada');
  await e.shoot(p2, 'session-tampered');
  await page.close();
  await p2.close();
});

test('a coupon typed on the page, then removed', async () => {
  const s = await billingSetup(api());
  const code = `E2E${Date.now() % 100000}`;
  await api().post('/v1/coupons', { code, percent: '10' });
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const page = await e.page();
  await page.goto(session.url);
  await heading(page, 'Finalizar compra');
  await page.getByLabel('Código del cupón').fill(code);
  await page.getByRole('button', { name: 'Aplicar cupón' }).click();
  await page.getByText(`Cupón ${code} aplicado.`).waitFor();
  expect(await page.locator('tfoot').textContent()).toContain('$ 9.000');
  await e.shoot(page, 'session-coupon-applied');
  await page.getByRole('button', { name: `Quitar ${code}` }).click();
  await heading(page, 'Finalizar compra');
  expect(await page.getByText(`Cupón ${code} aplicado.`).count()).toBe(0);
  expect(await page.locator('tfoot').textContent()).not.toContain('9.000');
  await e.shoot(page, 'session-coupon-removed');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ total: '10000.00', discounts: [] });
  await page.close();
});

test('declined and never retried: after expires_at the page says the purchase was canceled and nothing was charged', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-03-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], expires_at: '2026-03-01T11:00:00.000Z' })).body;
  const page = await e.page();
  await page.goto(session.url);
  await heading(page, 'Finalizar compra');
  await payWithCard(page, '4000000000000002');
  await page.getByRole('alert').filter({ hasText: 'rechazada' }).waitFor();
  await advance(api(), clock.id, '2026-03-01T12:00:00.000Z');
  await page.reload();
  await page.locator('h1', { hasText: /expir/ }).waitFor();
  expect(await page.getByText('no se hizo ningún cobro').count()).toBe(1);
  expect(await page.locator('form[action$="/pay"]').count()).toBe(0);
  await e.shoot(page, 'session-expired-after-decline');
  await linksOpen(page);
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  // The declined attempt made nothing: no collection to void.
  expect(after).toMatchObject({ status: 'expired', collection: null, subscription: null });
  await page.close();
});

test('an offline method the session names (a bank transfer): picked on the page, the customer gets the reference; the merchant records the transfer and the page thanks them', async () => {
  const s = await billingSetup(api());
  const bank = 'Transferencia Bancolombia';
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], payment_methods: { gateway_a: ['card'], offline: [bank] } })).body;
  const page = await e.page();
  await page.goto(session.url);
  await heading(page, 'Finalizar compra');
  await page.getByLabel(bank).check();
  await e.shoot(page, 'session-offline-choose');
  await page.locator('form[action$="/pay"] button[type=submit]').click();
  await page.getByText(`Paga $ 10.000 por ${bank} indicando esta referencia`).waitFor();
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid).toMatchObject({ status: 'complete', payment_status: 'processing' });
  expect(await page.locator('p.amount code').textContent()).toBe(mid.last_payment.additional_data.reference);
  expect(await page.locator('form[action$="/pay"]').count()).toBe(0);
  await e.shoot(page, 'session-offline-instructions');
  await linksOpen(page);
  expect((await api().post(`/v1/collections/${mid.collection}/pay`, { paid_out_of_band: true })).status).toBe(200);
  await page.getByRole('link', { name: 'Actualizar estado' }).click();
  await heading(page, '¡Gracias por tu compra!');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'paid' });
  await page.close();
});
