import request from 'supertest';
import { formatDate } from '#web/format.js';
import { billingSetup } from '../support/billing-fixtures.js';
import { csrfOf, openSession } from '../support/hosted-page.js';
import { linksOf } from '../support/link-crawler.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The hosted checkout's outcomes over HTTP: post/redirect/get after a refused or declined payment (the
 * session's and the collection's page), every refusal a checkout page can show in the page's language,
 * the methods offered by mode with names a customer recognises, and what the thank-you page tells.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Resultados')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const approving = { method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '123' };
const declining = { method: 'card', card_number: '4000000000000002', card_exp: '11/31', card_cvc: '321', card_holder: 'Ana Gómez' };
type Locale = 'es' | 'en';
const lang = (locale: Locale) => (locale === 'en' ? 'en' : 'es-CO');
/** The API's English wording of refusals, never on a page. */
const API_ENGLISH = /Cannot pay|its status is|Payment link pl_\w+ has|is required|must be|is not active|not configured|Payment link pl_|Checkout session cs_|This checkout/;

async function session(body: Record<string, unknown>) {
  return (await api().post('/v1/checkout_session', body)).body as { id: string; url: string };
}

/** Opens the session in a browser-like agent and, in English, asks for the English page. */
async function opened(url: string, locale: Locale) {
  const o = await openSession(t, url);
  const page = locale === 'en' ? await o.browser.get(`${o.path}?locale=en`) : o.page;
  return { ...o, page };
}

/** Posts a form of the page, expects a redirect (303) to the page itself, and follows it. */
async function postAndFollow(browser: ReturnType<typeof request.agent>, action: string, fields: Record<string, string>, page: string, locale: Locale) {
  const res = await browser.post(action).type('form').send({ ...fields, _csrf: csrfOf(page), locale: lang(locale) });
  expect([res.status, res.headers.location]).toEqual([303, locale === 'en' ? `${action.replace(/\/[a-z]+$/, '')}?locale=en` : action.replace(/\/[a-z]+$/, '')]);
  return { res, next: await browser.get(res.headers.location) };
}

describe('post/redirect/get after a refused or declined payment', () => {
  test.each<Locale>(['es', 'en'])('a declined card on the session page (%s): 303 to the page, which gives the reason and the form again; its links (the language too) open pages; no card number anywhere', async (locale) => {
    const s = await billingSetup(api());
    const cs = await session({ mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] });
    const { browser, path, page } = await opened(cs.url, locale);
    const { res, next } = await postAndFollow(browser, `${path}/pay`, declining, page.text, locale);
    // The token stays in its cookie: not in the address the browser is sent to.
    expect(res.headers.location).not.toMatch(/t=|token|#/);
    const flash = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('cs_flash='))!;
    expect(flash).toMatch(new RegExp(`Path=${path};.*HttpOnly`, 'i'));
    expect(Buffer.from(flash.split(';')[0].slice('cs_flash='.length), 'base64url').toString()).not.toMatch(/4000000000000002|321/);
    expect(next.status).toBe(200);
    expect(next.text).toContain(`<html lang="${lang(locale)}">`);
    expect(next.text).toContain('role="alert"');
    expect(next.text).toContain(locale === 'en' ? 'Your card was declined' : 'Tu tarjeta fue rechazada');
    expect(next.text).toContain(`action="${path}/pay"`);
    expect(next.text).toContain('value="11/31"'); // the expiry and holder come back, never the number or CVC
    expect(next.text).toContain('value="Ana Gómez"');
    expect(next.text).not.toMatch(/4000000000000002|value="321"/);
    // A reload is a GET: the same outcome, nothing re-sent.
    const reload = await browser.get(res.headers.location);
    expect(reload.text).toContain(locale === 'en' ? 'Your card was declined' : 'Tu tarjeta fue rechazada');
    // Every link of the page opens a page; the other language shows the reason in its words.
    for (const href of linksOf(next.text).filter((h) => h.startsWith('/'))) {
      const other = await browser.get(href);
      expect([href, other.status]).toEqual([href, 200]);
    }
    const switched = await browser.get(linksOf(next.text).find((h) => h.includes('locale='))!);
    expect(switched.text).toContain(locale === 'en' ? 'Tu tarjeta fue rechazada' : 'Your card was declined');
  });

  test('a refused payment (consent missing) and a refused field (card number) on the session page: 303, the reason once, what was typed kept', async () => {
    const s = await billingSetup(api());
    const cs = await session({
      mode: 'payment',
      customer: s.customer.id,
      items: [{ price: s.setupFee.id }],
      consent: { acceptance_required: true, terms_of_service: true },
      custom_fields: [{ key: 'dedicatoria', label: 'Dedicatoria', required: true }],
    });
    const { browser, path, page } = await opened(cs.url, 'es');
    const { next } = await postAndFollow(browser, `${path}/pay`, { ...approving, cf_dedicatoria: 'Para Ana' }, page.text, 'es');
    expect(next.text).toContain('Debes aceptar las condiciones');
    expect(next.text).toContain('value="Para Ana"');
    expect((await browser.get(path)).text).not.toContain('Debes aceptar las condiciones'); // shown once
    const field = await postAndFollow(browser, `${path}/pay`, { ...approving, card_number: '12', consent_terms: 'yes' }, next.text, 'es');
    expect(field.next.text).toContain('Revisa el número de la tarjeta');
    expect(field.next.text).toContain('name="consent_terms" value="yes" checked');
    const paid = await browser.post(`${path}/pay`).type('form').send({ ...approving, consent_terms: 'yes', cf_dedicatoria: 'Para Ana', _csrf: csrfOf(field.next.text) });
    expect(paid.status).toBe(303);
    expect((await browser.get(path)).text).toContain('¡Gracias por tu compra!');
  });

  test.each<Locale>(['es', 'en'])('a declined card and a refused field on the collection page (%s): 303 to the page, the reason in its language, the language link a page', async (locale) => {
    const s = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
    const path = `/checkout/col/${sub.latest_collection}`;
    const browser = request.agent(t.app.getHttpServer());
    const page = await browser.get(locale === 'en' ? `${path}?locale=en` : path);
    const declined = await browser.post(`${path}/pay`).type('form').send({ ...declining, card_number: '4000000000009995', _csrf: csrfOf(page.text), locale: lang(locale) });
    expect([declined.status, declined.headers.location]).toEqual([303, locale === 'en' ? `${path}?locale=en` : path]);
    const next = await browser.get(declined.headers.location);
    expect(next.status).toBe(200);
    expect(next.text).toContain(locale === 'en' ? 'insufficient funds' : 'no tiene fondos suficientes');
    expect(next.text).toContain('value="11/31"');
    expect(next.text).not.toContain('4000000000009995');
    for (const href of linksOf(next.text).filter((h) => h.startsWith('/'))) expect([href, (await browser.get(href)).status]).toEqual([href, 200]);
    const field = await browser.post(`${path}/pay`).type('form').send({ ...approving, card_exp: '13/30', _csrf: csrfOf(next.text), locale: lang(locale) });
    expect(field.status).toBe(303);
    const fieldPage = await browser.get(field.headers.location);
    expect(fieldPage.text).toContain(locale === 'en' ? 'Enter the expiry as MM/YY.' : 'Escribe el vencimiento como MM/AA.');
    expect(fieldPage.text).toContain('aria-invalid="true"');
    expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.collection_attempts).toBe(1);
  });
});

describe('every refusal a checkout page can show is in the page\'s language', () => {
  const words: Record<string, Record<Locale, string>> = {
    payment_link_used_up: { es: 'Este enlace de pago alcanzó su límite de usos', en: 'This payment link has reached its usage limit' },
    payment_link_inactive: { es: 'El comercio desactivó este enlace de pago', en: 'The merchant deactivated this payment link' },
    invalid_state: { es: 'Esta compra ya no se puede pagar', en: 'This purchase can no longer be paid' },
    consent_required: { es: 'Debes aceptar las condiciones', en: 'You must accept the conditions' },
    custom_field_required: { es: 'Completa los campos obligatorios', en: 'Fill in the required fields' },
    shipping_country_not_allowed: { es: 'No hacemos envíos a ese país', en: 'We do not ship to that country' },
    ntp_amount: { es: 'Revisa el monto', en: 'Check the amount' },
    coupon_invalid: { es: 'Ese cupón no existe', en: 'That coupon does not exist' },
    email_code_invalid: { es: 'El código no es correcto', en: 'The code is not correct' },
    email_invalid: { es: 'Escribe un correo electrónico válido', en: 'Enter a valid e-mail address' },
  };

  /** A session opened from a payment link (the page's own start), in a browser at the link's page. */
  async function fromLink(link: { id: string }, locale: Locale) {
    const browser = request.agent(t.app.getHttpServer());
    const landing = await browser.get(`/checkout/pl/${link.id}${locale === 'en' ? '?locale=en' : ''}`);
    const started = await browser.post(`/checkout/pl/${link.id}`).type('form').send({ _csrf: csrfOf(landing.text), locale: lang(locale) });
    expect(started.status).toBe(303);
    return started.headers.location as string;
  }

  /** Identifies a new customer on the page (e-mail, then name). */
  async function identify(browser: ReturnType<typeof request.agent>, path: string, page: string, locale: Locale) {
    const email = `r.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
    const a = await postAndFollow(browser, `${path}/email`, { email }, page, locale);
    const b = await postAndFollow(browser, `${path}/customer`, { email, name: 'Ana Gómez' }, a.next.text, locale);
    return b.next.text;
  }

  const expectWords = (html: string, code: string, locale: Locale) => {
    expect(html).toContain(`<html lang="${lang(locale)}">`);
    expect(html).toContain(words[code][locale]);
    expect(html).not.toMatch(API_ENGLISH);
  };

  test.each<Locale>(['es', 'en'])('a payment link used up, then deactivated, while its sessions were open (%s)', async (locale) => {
    const s = await billingSetup(api());
    const link = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }], usage_limit: 1 })).body;
    const first = await opened(await fromLink(link, locale), locale);
    const second = await opened(await fromLink(link, locale), locale);
    const firstReady = await identify(first.browser, first.path, first.page.text, locale);
    const secondReady = await identify(second.browser, second.path, second.page.text, locale);
    expect((await postAndFollow(first.browser, `${first.path}/pay`, approving, firstReady, locale)).next.text).toContain(locale === 'en' ? 'Thank you' : 'Gracias');
    const usedUp = await postAndFollow(second.browser, `${second.path}/pay`, approving, secondReady, locale);
    expectWords(usedUp.next.text, 'payment_link_used_up', locale);

    const other = (await api().post('/v1/payment_links', { items: [{ price: s.setupFee.id }] })).body;
    const third = await opened(await fromLink(other, locale), locale);
    const thirdReady = await identify(third.browser, third.path, third.page.text, locale);
    expect((await api().post(`/v1/payment_links/${other.id}/update`, { active: false })).status).toBe(200);
    const inactive = await postAndFollow(third.browser, `${third.path}/pay`, approving, thirdReady, locale);
    expectWords(inactive.next.text, 'payment_link_inactive', locale);
  });

  test.each<Locale>(['es', 'en'])('the collection of a session whose bank refused was voided: paying it again (%s)', async (locale) => {
    const s = await billingSetup(api());
    const cs = await session({ mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] });
    const { browser, path, page } = await opened(cs.url, locale);
    const started = await browser.post(`${path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(page.text), locale: lang(locale) });
    const bankPath = new URL(started.headers.location).pathname;
    const bank = await browser.get(bankPath);
    await browser.post(bankPath).type('form').send({ decision: 'reject', _csrf: csrfOf(bank.text), locale: lang(locale) });
    const refused = await browser.get(`${path}${locale === 'en' ? '?locale=en' : ''}`);
    expect((await api().post(`/v1/collections/${(await api().get(`/v1/checkout_session/${cs.id}`)).body.collection}/void`)).status).toBe(200);
    const again = await postAndFollow(browser, `${path}/pay`, approving, refused.text, locale);
    expectWords(again.next.text, 'invalid_state', locale);
  });

  test.each<Locale>(['es', 'en'])('consent, a required field, a shipping country, an amount out of its limits (%s)', async (locale) => {
    const s = await billingSetup(api());
    const ntp = (await api().post('/v1/prices', { product_id: s.product.id, type: 'one_time', pricing_model: 'ntp', currency: 'COP', ntp_pricing: { min_amount: '5000', max_amount: '100000', suggested_amount: '20000' } })).body;
    expect(ntp.id).toMatch(/^price_/);
    const cs = await session({
      mode: 'payment',
      customer: s.customer.id,
      items: [{ price: ntp.id }],
      consent: { acceptance_required: true, terms_of_service: true },
      custom_fields: [{ key: 'dedicatoria', label: 'Dedicatoria', required: true }],
      shipping_address_collection: true,
      shipping_address_countries: ['CO'],
    });
    const { browser, path, page } = await opened(cs.url, locale);
    const ship = { ship_address_1: 'Cra 7 # 71-21', ship_city: 'Bogotá', ship_state: 'DC', ship_country: 'CO' };
    const noConsent = await postAndFollow(browser, `${path}/pay`, { ...approving, ...ship, cf_dedicatoria: 'x', ntp_amount: '20000' }, page.text, locale);
    expectWords(noConsent.next.text, 'consent_required', locale);
    const noField = await postAndFollow(browser, `${path}/pay`, { ...approving, ...ship, consent_terms: 'yes', ntp_amount: '20000' }, noConsent.next.text, locale);
    expectWords(noField.next.text, 'custom_field_required', locale);
    const abroad = await postAndFollow(browser, `${path}/pay`, { ...approving, ...ship, ship_country: 'US', consent_terms: 'yes', cf_dedicatoria: 'x', ntp_amount: '20000' }, noField.next.text, locale);
    expectWords(abroad.next.text, 'shipping_country_not_allowed', locale);
    const tooMuch = await postAndFollow(browser, `${path}/pay`, { ...approving, ...ship, consent_terms: 'yes', cf_dedicatoria: 'x', ntp_amount: '900000' }, abroad.next.text, locale);
    expectWords(tooMuch.next.text, 'ntp_amount', locale);
  });

  test.each<Locale>(['es', 'en'])('a coupon that does not exist, a malformed e-mail, a wrong e-mail code (%s)', async (locale) => {
    const s = await billingSetup(api());
    const cs = await session({ mode: 'payment', items: [{ price: s.setupFee.id }] });
    const { browser, path, page } = await opened(cs.url, locale);
    const coupon = await postAndFollow(browser, `${path}/coupon`, { action: 'apply', code: 'NOEXISTE' }, page.text, locale);
    expectWords(coupon.next.text, 'coupon_invalid', locale);
    const badEmail = await postAndFollow(browser, `${path}/email`, { email: 'no-es-un-correo' }, coupon.next.text, locale);
    expectWords(badEmail.next.text, 'email_invalid', locale);
    // A known customer's e-mail gets a code; a wrong one is refused, with the attempts left.
    const wrong = await postAndFollow(browser, `${path}/email`, { email: s.customer.email }, badEmail.next.text, locale);
    const code = await postAndFollow(browser, `${path}/code`, { code: '000000' }, wrong.next.text, locale);
    expectWords(code.next.text, 'email_code_invalid', locale);
    expect(code.next.text).toContain(locale === 'en' ? 'attempts left' : 'Te quedan');
  });
});

describe('the methods offered fit the mode, with names a customer recognises', () => {
  const offered = (html: string) => [...html.matchAll(/name="method" value="([^"]+)"/g)].map((m) => m[1]);

  test('a subscription session offers only methods that renew by themselves; a payment session everything configured; a subscription session that names others offers them', async () => {
    const s = await billingSetup(api());
    const sub = await opened((await session({ mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }] })).url, 'es');
    expect(offered(sub.page.text)).toEqual(['card', 'wallet_a', 'wallet_b']);
    expect(sub.page.text).toContain('Tarjeta de crédito o débito');
    expect(sub.page.text).toContain('Billetera móvil (con tu número de celular)');
    expect(sub.page.text).toContain('Billetera digital (con tu correo o celular)');
    expect(sub.page.text).not.toMatch(/Billetera digital [AB]\b|Efecty|PSE/);
    // A method the page did not offer is refused before anything is asked of a gateway.
    const forged = await sub.browser.post(`${sub.path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(sub.page.text) });
    expect(forged.status).toBe(303);
    expect((await sub.browser.get(sub.path)).text).toContain('Elige un medio de pago.');
    expect((await api().get(`/v1/charges?customer=${s.customer.id}`)).body.data).toHaveLength(0);

    const pay = await opened((await session({ mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).url, 'es');
    expect(offered(pay.page.text)).toEqual(['card', 'pse', 'wallet_a', 'wallet_b', 'efecty', 'cash', 'bank_transfer', 'bank_transfer_a', 'bank_collect_a', 'quick_pay']);
    for (const name of ['PSE (débito desde tu cuenta bancaria)', 'Efecty (pago en efectivo)', 'Pago en efectivo en un corresponsal', 'Transferencia bancaria', 'Botón de pago de tu banco']) expect(pay.page.text).toContain(name);
    const payEn = await pay.browser.get(`${pay.path}?locale=en`);
    for (const name of ['Credit or debit card', 'Mobile wallet (with your phone number)', 'Efecty (cash payment)', 'Cash at a payment agent']) expect(payEn.text).toContain(name);
    expect(payEn.text).not.toMatch(/Digital wallet [AB]\b/);

    const named = await opened((await session({ mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }], payment_methods: { gateway_a: ['card', 'pse'] } })).url, 'es');
    expect(offered(named.page.text)).toEqual(['card', 'pse']);
  });
});

describe('the thank-you page says what was bought, the references, the next charge and where the confirmation goes', () => {
  test.each<Locale>(['es', 'en'])('a monthly subscription paid by card (%s)', async (locale) => {
    const s = await billingSetup(api());
    const cs = await session({ mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id, quantity: 2 }] });
    const { browser, path, page } = await opened(cs.url, locale);
    const { next } = await postAndFollow(browser, `${path}/pay`, approving, page.text, locale);
    const done = (await api().get(`/v1/checkout_session/${cs.id}`)).body;
    const sub = (await api().get(`/v1/subscriptions/${done.subscription}`)).body;
    const html = next.text;
    expect(html).toContain(locale === 'en' ? 'Thank you for your purchase!' : '¡Gracias por tu compra!');
    // What was bought: the product, its quantity and amounts, the total with its currency.
    expect(html).toContain(s.product.name);
    expect(html).toMatch(/<td class="num">2<\/td>/);
    expect(html).toContain(locale === 'en' ? 'COP 99,800' : '$ 99.800');
    expect(html).toContain(locale === 'en' ? '<dd data-fact="total">COP 99,800</dd>' : '<dd data-fact="total">$ 99.800 COP</dd>');
    // The references a customer can quote.
    expect(html).toContain(`<dd data-fact="subscription"><code>${sub.id}</code></dd>`);
    expect(html).toContain(`<dd data-fact="collection"><code>${done.collection}</code></dd>`);
    expect(html).toContain(`<dd data-fact="session"><code>${cs.id}</code></dd>`);
    // The next charge: a calendar day in Bogotá, and its amount.
    expect(sub.next_renewal_date).toBeTruthy();
    const day = formatDate(sub.next_renewal_date, locale === 'en' ? 'en' : 'es-CO');
    expect(html).toContain(`<dd data-fact="next">${day}, ${locale === 'en' ? 'for COP 99,800' : 'por $ 99.800 COP'}</dd>`);
    // Where the confirmation goes: the customer's e-mail, masked.
    const [user, domain] = s.customer.email.split('@');
    expect(html).toMatch(new RegExp(`<dd data-fact="email">Tienda Resultados ${locale === 'en' ? 'will send it to' : 'la enviará a'} ${user[0]}\\*+@${domain.replace(/\./g, '\\.')}</dd>`));
    expect(html).not.toContain(s.customer.email);
  });

  test.each<Locale>(['es', 'en'])('a payment awaiting the bank (PSE) and a cash voucher say what happens next (%s)', async (locale) => {
    const s = await billingSetup(api());
    const pse = await opened((await session({ mode: 'subscription', customer: s.customer.id, items: [{ price: s.monthly.id }], payment_methods: { gateway_a: ['card', 'pse'] } })).url, locale);
    const started = await pse.browser.post(`${pse.path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(pse.page.text), locale: lang(locale) });
    expect(started.status).toBe(303);
    const waiting = (await pse.browser.get(`${pse.path}${locale === 'en' ? '?locale=en' : ''}`)).text;
    expect(waiting).toContain(locale === 'en' ? 'Continue the payment at your bank' : 'Continuar el pago en tu banco');
    expect(waiting).toContain(locale === 'en' ? 'Your subscription starts as soon as the payment is confirmed.' : 'Tu suscripción se activará en cuanto se confirme el pago.');
    expect(waiting).toMatch(locale === 'en' ? /Tienda Resultados sends the confirmation to \w\*+@/ : /Tienda Resultados te enviará la confirmación a \w\*+@/);
    expect(waiting).toContain(locale === 'en' ? 'Total to pay' : 'Total a pagar');
    expect(waiting).toMatch(/data-fact="subscription"><code>sub_/);

    const cash = await opened((await session({ mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).url, locale);
    await cash.browser.post(`${cash.path}/pay`).type('form').send({ method: 'efecty', _csrf: csrfOf(cash.page.text), locale: lang(locale) });
    const voucher = (await cash.browser.get(`${cash.path}${locale === 'en' ? '?locale=en' : ''}`)).text;
    expect(voucher).toContain(locale === 'en' ? 'Pay COP 10,000 with Efecty (cash payment) quoting this reference.' : 'Paga $ 10.000 con Efecty (pago en efectivo) indicando esta referencia.');
    expect(voucher).not.toMatch(/Pay 10000|quoting reference \d/);
  });
});
