import { jest } from '@jest/globals';
import type { Page } from 'playwright-core';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { makeMember } from '../support/dashboard-member.js';
import { crawlLinks, describeBroken, type CrawlFetch } from '../support/link-crawler.js';
import { hasChromium, openBrowser, screenshot, VIEWPORTS } from './support/browser.js';
import { startServer } from './support/server.js';

/**
 * End to end in real headless Chromium (Debian's /usr/bin/chromium through playwright-core): the
 * customer portal and the merchant dashboard as a person uses them. Screenshots at phone and laptop
 * sizes go to test-output/e2e/.
 */
// In CI a missing browser is a failure, never a silent skip.
const describeWithBrowser = hasChromium() || process.env.CI ? describe : describe.skip;
if (!hasChromium()) console.warn('e2e skipped: no chromium at /usr/bin/chromium (set CHROMIUM_PATH)');

jest.setTimeout(120_000);

let server: Awaited<ReturnType<typeof startServer>>;
let keys: { id: string; test_key: string; live_key: string };
beforeAll(async () => {
  if (!hasChromium()) return;
  server = await startServer();
  keys = await server.account('E2E merchant');
});
afterAll(async () => server?.close());

const api = () => server.as(keys.test_key);
const linkPath = async (customer: string) => {
  const res = await api().post('/v1/portal_sessions', { customer });
  expect(res.status).toBe(200);
  return new URL(res.body.url).pathname;
};
const statusOf = (page: Page, sub: string) => page.locator(`[data-subscription="${sub}"] [data-status]`).getAttribute('data-status');
/** The browser's own requests (its cookies), for the link crawler: GET without following redirects. */
const browserFetch = (page: Page): CrawlFetch => async (path) => {
  const res = await page.context().request.get(server.base + path, { maxRedirects: 0 });
  const type = res.headers()['content-type'] ?? '';
  return { status: res.status(), location: res.headers().location ?? null, html: type.includes('text/html') ? await res.text() : '' };
};
/** How far the page or an element scrolls sideways (0: it fits). */
const sideways = (page: Page, selector = 'html') => page.locator(selector).first().evaluate((el) => el.scrollWidth - el.clientWidth);
/**
 * The actions of a subscription's card that sit on one row (same top), with the vertical centre of
 * each one's label: rows whose labels are not at one height, as `top: centres`.
 */
const misalignedRows = (page: Page, sub: string) =>
  page.locator(`[data-subscription="${sub}"] .actions`).evaluate((row) => {
    const rows = new Map<number, Set<number>>();
    for (const el of row.querySelectorAll('button, a.button')) {
      const range = row.ownerDocument.createRange();
      range.selectNodeContents(el);
      const label = range.getBoundingClientRect();
      const top = Math.round(el.getBoundingClientRect().top);
      rows.set(top, (rows.get(top) ?? new Set()).add(Math.round(label.top + label.height / 2)));
    }
    return [...rows].filter(([, centres]) => centres.size > 1).map(([top, centres]) => `${top}: ${[...centres].join(', ')}`);
  });

describeWithBrowser('customer portal', () => {
  test('open a link, pause, resume; a used link is refused; an expired one too; editing an id gets nothing', async () => {
    const mine = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: mine.customer.id, items: [{ price: mine.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
    const theirs = await billingSetup(api());
    const other = (await api().post('/v1/subscriptions', { customer: theirs.customer.id, items: [{ price: theirs.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
    const path = await linkPath(mine.customer.id);
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      const b = await openBrowser(viewport);
      try {
        const { page } = b;
        const first = size === 'phone';
        await page.goto(server.base + (first ? path : await linkPath(mine.customer.id)));
        expect(await page.locator('h1').textContent()).toContain('Hola');
        expect(await statusOf(page, sub.id)).toBe('active');
        await screenshot(page, `portal-home-${size}`);
        await page.getByRole('button', { name: 'Pausar' }).click();
        await page.waitForURL(/notice=paused/);
        expect(await statusOf(page, sub.id)).toBe('paused');
        expect(await page.getByRole('status').textContent()).toContain('en pausa');
        await screenshot(page, `portal-paused-${size}`);
        await page.getByRole('button', { name: 'Reanudar' }).click();
        await page.waitForURL(/notice=resumed/);
        expect(await statusOf(page, sub.id)).toBe('active');
        // Tampering: the pause form edited to name another customer's subscription.
        await page.$eval(`[data-subscription="${sub.id}"] form[action$="/pause"]`, (form, id) => form.setAttribute('action', form.getAttribute('action')!.replace(/sub_[A-Za-z0-9]+/, id as string)), other.id);
        await page.locator(`[data-subscription="${sub.id}"]`).getByRole('button', { name: 'Pausar' }).click();
        expect(await page.locator('h1').textContent()).toContain('Página no encontrada');
        const tampered = await page.goto(`${server.base}/portal/p/subscriptions/${other.id}/payment_method`);
        expect(tampered!.status()).toBe(404);
        expect((await api().get(`/v1/subscriptions/${other.id}`)).body.status).toBe('active');
        await page.goto(`${server.base}/portal/p`);
        expect(await page.content()).not.toContain(other.id);
      } finally {
        await b.close();
      }
    }
    // The first link was used: refused in a fresh browser.
    const again = await openBrowser(VIEWPORTS.phone);
    try {
      const res = await again.page.goto(server.base + path);
      expect(res!.status()).toBe(410);
      expect(await again.page.locator('h1').textContent()).toContain('Este enlace ya se usó');
      await screenshot(again.page, 'portal-link-used-phone');
      const expiring = await linkPath(mine.customer.id);
      const start = server.clock.now();
      server.clock.advanceMs(16 * 60 * 1000);
      try {
        const expired = await again.page.goto(server.base + expiring);
        expect(expired!.status()).toBe(410);
        expect(await again.page.locator('h1').textContent()).toContain('Este enlace venció');
      } finally {
        server.clock.set(start);
      }
    } finally {
      await again.close();
    }
  });

  test('replace the card of a past_due subscription and see it active', async () => {
    const clock = (await api().post('/v1/test_helpers/test_clocks', { frozen_time: '2026-01-15T12:00:00.000Z' })).body;
    const s = await billingSetup(api());
    const customer = (await api().post('/v1/customers', { email: `e2e.${Date.now()}@example.com`, name: 'Lucía Pérez', test_clock: clock.id })).body;
    const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
    const declining = (await api().post('/v1/payment_methods/migrate', { customer: customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_decline_e2e', card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 } })).body;
    await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id });
    await api().post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozen_time: '2026-02-15T12:00:00.000Z' });
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('past_due');
    const b = await openBrowser(VIEWPORTS.phone);
    try {
      const { page } = b;
      await page.goto(server.base + (await linkPath(customer.id)));
      expect(await statusOf(page, sub.id)).toBe('past_due');
      await screenshot(page, 'portal-past-due-phone');
      await page.getByRole('link', { name: 'Cambiar tarjeta' }).click();
      await page.getByLabel('Número de tarjeta').fill('4000 0000 0000 0002');
      await page.getByLabel('Mes de vencimiento').fill('12');
      await page.getByLabel('Año de vencimiento').fill('2031');
      await page.getByLabel('CVC').fill('123');
      await page.getByRole('button', { name: 'Guardar tarjeta' }).click();
      expect(await page.getByRole('alert').textContent()).toContain('rechazado');
      await screenshot(page, 'portal-card-declined-phone');
      await page.getByLabel('Número de tarjeta').fill('4242 4242 4242 4242');
      await page.getByLabel('Mes de vencimiento').fill('12');
      await page.getByLabel('Año de vencimiento').fill('2031');
      await page.getByRole('button', { name: 'Guardar tarjeta' }).click();
      await page.waitForURL(/notice=recovered/);
      expect(await statusOf(page, sub.id)).toBe('active');
      expect(await page.content()).not.toContain('4242424242424242');
      await screenshot(page, 'portal-recovered-phone');
    } finally {
      await b.close();
    }
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
  });
});

describeWithBrowser('customer portal: cancel with a confirmation, then keep the subscription', () => {
  test('period end: confirm, see when the plan ends, keep it; now: confirm and it ends; labels aligned; every link opens a page', async () => {
    const mine = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: mine.customer.id, items: [{ price: mine.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      const b = await openBrowser(viewport);
      try {
        const { page } = b;
        await page.goto(server.base + (await linkPath(mine.customer.id)));
        await screenshot(page, `portal-actions-${size}`);
        // The action buttons' labels line up on a laptop's row ("Cambiar tarjeta" was higher).
        expect(await misalignedRows(page, sub.id)).toEqual([]);
        await page.locator(`[data-subscription="${sub.id}"]`).getByRole('link', { name: 'Cancelar al final del periodo' }).click();
        await page.waitForURL(/\/cancel\?cancel_at=period_end/);
        expect(await page.locator('h1').textContent()).toBe('¿Cancelar al final del periodo?');
        expect(await page.locator('[data-confirm-cancel]').textContent()).toMatch(/Conservas tu plan hasta el \d{1,2} de [a-z]+ de \d{4}/);
        await screenshot(page, `portal-confirm-period-end-${size}`);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        await page.getByRole('button', { name: 'Sí, cancelar al final del periodo' }).click();
        await page.waitForURL(/notice=pending_cancel/);
        expect(await statusOf(page, sub.id)).toBe('pending_cancel');
        expect(await page.locator(`[data-subscription="${sub.id}"] [data-ends-at]`).textContent()).toMatch(/Tu plan termina el \d{1,2} de [a-z]+ de \d{4}/);
        await screenshot(page, `portal-ending-${size}`);
        expect(await misalignedRows(page, sub.id)).toEqual([]);
        await page.getByRole('button', { name: 'Mantener mi suscripción' }).click();
        await page.waitForURL(/notice=kept/);
        expect(await statusOf(page, sub.id)).toBe('active');
        expect(await page.locator(`[data-subscription="${sub.id}"] [data-ends-at]`).count()).toBe(0);
        expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'active', cancel_at: null });
        // Every link of the account page and the ones it leads to opens a page, in both languages.
        for (const locale of ['es', 'en']) {
          const crawl = await crawlLinks(browserFetch(page), [`/portal/p?locale=${locale}`], { within: (p) => p.startsWith('/portal') });
          expect(describeBroken(crawl.broken)).toEqual([]);
        }
      } finally {
        await b.close();
      }
    }
    // Cancel now: the confirmation says what is lost; going back keeps it, confirming ends it.
    const b = await openBrowser(VIEWPORTS.phone);
    try {
      const { page } = b;
      await page.goto(server.base + (await linkPath(mine.customer.id)));
      await page.locator(`[data-subscription="${sub.id}"]`).getByRole('link', { name: 'Cancelar ahora' }).click();
      expect(await page.locator('h1').textContent()).toBe('¿Cancelar tu suscripción ahora?');
      expect(await page.locator('.losses').textContent()).toContain('No se reembolsa el periodo en curso.');
      await screenshot(page, 'portal-confirm-now-phone');
      await page.setViewportSize(VIEWPORTS.laptop);
      await screenshot(page, 'portal-confirm-now-laptop');
      await page.setViewportSize(VIEWPORTS.phone);
      await page.getByRole('link', { name: 'No, mantener mi suscripción' }).click();
      expect(await statusOf(page, sub.id)).toBe('active');
      await page.locator(`[data-subscription="${sub.id}"]`).getByRole('link', { name: 'Cancelar ahora' }).click();
      await page.getByRole('button', { name: 'Sí, cancelar ahora' }).click();
      await page.waitForURL(/notice=canceled/);
      expect(await statusOf(page, sub.id)).toBe('canceled');
    } finally {
      await b.close();
    }
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('canceled');
  });
});

describeWithBrowser('merchant dashboard', () => {
  const fill = async (page: Page, values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) {
      const field = page.locator(`[name="${name}"]`);
      if ((await field.evaluate((el) => el.tagName)) === 'SELECT') await field.selectOption(value);
      else await field.fill(value);
    }
  };
  /** Types a member's e-mail and password in the sign-in form and sends it. */
  const signIn = async (page: Page, email: string, password: string) => {
    await page.getByLabel('Correo electrónico', { exact: true }).fill(email);
    await page.getByLabel('Contraseña', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Ingresar' }).click();
  };
  const create = async (page: Page, form: string, values: Record<string, string>, button: string) => {
    await page.goto(`${server.base}/dashboard/new/${form}`);
    await fill(page, values);
    await page.getByRole('button', { name: button }).click();
    await page.waitForURL(/\/dashboard\/\w+\/[a-z]+_[A-Za-z0-9]+/);
    return page.url().split('/').pop()!.split('?')[0];
  };

  test('sign in as a member, test mode, create product, price, customer and a charge subscription, list, timeline (who did it), as_of, cancel; live mode (the switch) sees none of it', async () => {
    const owner = await makeMember(server, keys.id, 'owner', { email: `duena.e2e.${Date.now()}@example.com` });
    const b = await openBrowser(VIEWPORTS.laptop);
    let subId = '';
    try {
      const { page } = b;
      await page.goto(`${server.base}/dashboard`);
      expect(await page.locator('h1').textContent()).toBe('Ingresa al panel');
      // The password field looks like the e-mail field (the same width and height), at both sizes.
      const fieldBox = async (label: string) => (await page.getByLabel(label, { exact: true }).boundingBox())!;
      const sameFields = async () => {
        const [email, password] = [await fieldBox('Correo electrónico'), await fieldBox('Contraseña')];
        expect([password.width, password.height]).toEqual([email.width, email.height]);
      };
      await sameFields();
      await screenshot(page, 'dashboard-login-laptop');
      await page.setViewportSize(VIEWPORTS.phone);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await sameFields();
      await screenshot(page, 'dashboard-login-phone');
      // A wrong password: the same words as an unknown e-mail, the e-mail kept, the password not.
      await signIn(page, owner.email, 'not the right password at all');
      expect(await page.getByRole('alert').textContent()).toBe('El correo o la contraseña no son correctos.');
      expect(await page.getByLabel('Correo electrónico', { exact: true }).inputValue()).toBe(owner.email);
      expect(await page.getByLabel('Contraseña', { exact: true }).inputValue()).toBe('');
      await screenshot(page, 'dashboard-login-refused-phone');
      await signIn(page, 'nobody.e2e@example.com', owner.password);
      expect(await page.getByRole('alert').textContent()).toBe('El correo o la contraseña no son correctos.');
      await page.setViewportSize(VIEWPORTS.laptop);
      await signIn(page, owner.email, owner.password);
      await page.waitForURL(/\/dashboard\/home/);
      expect(await page.locator('[data-mode]').getAttribute('data-mode')).toBe('test');
      expect(await page.locator('[data-member-role]').textContent()).toBe(`Sesión de ${owner.email} (Propietario)`);
      // The session cookie: HttpOnly (no script reads it), SameSite.
      const session = (await b.context.cookies()).find((c) => c.name === 'dashboard_session')!;
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      expect(await page.locator('html').evaluate((el) => el.ownerDocument.cookie)).not.toContain('dashboard_session');
      // Spanish (es-CO) by default: headings, the mode badge, the table's headers.
      expect(await page.locator('html').getAttribute('lang')).toBe('es-CO');
      expect(await page.locator('h1').textContent()).toBe('Inicio'); // an owner lands on the business
      expect(await page.locator('[data-mode]').textContent()).toBe('MODO DE PRUEBA');
      const productId = await create(page, 'product', { name: 'Plan E2E', description: 'Dashboard-made' }, 'Crear producto');
      // The API's own validation message next to the field it names.
      await page.goto(`${server.base}/dashboard/new/price`);
      await fill(page, { product_id: productId, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP' });
      await page.getByRole('button', { name: 'Crear precio' }).click();
      expect(await page.locator('[data-error-for="unit_price"]').textContent()).toBe('Precio unitario: este dato es obligatorio.');
      await screenshot(page, 'dashboard-price-error-laptop');
      // Its language switch opens the form's page in English, where the same refusal is in English.
      await page.getByRole('link', { name: 'English' }).click();
      await page.waitForURL(/\/dashboard\/new\/price\?locale=en$/);
      expect(await page.locator('h1').textContent()).toBe('New price');
      await fill(page, { product_id: productId, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP' });
      await page.getByRole('button', { name: 'Create price' }).click();
      expect(await page.locator('[data-error-for="unit_price"]').textContent()).toBe('Unit price: this field is required.');
      await page.getByRole('link', { name: 'Español' }).click();
      await page.waitForURL(/\/dashboard\/new\/price\?locale=es$/);
      const priceId = await create(page, 'price', { product_id: productId, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP', unit_price: '39900' }, 'Crear precio');
      const customerId = await create(page, 'customer', { email: `dash.e2e.${Date.now()}@example.com`, name: 'Marta Ruiz' }, 'Crear cliente');
      subId = await create(
        page,
        'subscription',
        { customer: customerId, 'items[0][price]': priceId, 'items[0][quantity]': '1', collection_method: 'charge', 'payment_information[card][number]': '4242424242424242', 'payment_information[card][exp_month]': '12', 'payment_information[card][exp_year]': '2030', 'payment_information[card][cvc]': '123' },
        'Crear suscripción',
      );
      await page.goto(`${server.base}/dashboard/subscriptions`);
      expect(await page.locator(`tr[data-id="${subId}"]`).count()).toBe(1);
      // On a laptop every column shows without scrolling sideways (list dates are short: `23 de nov de 2026`).
      expect(await page.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      expect(await page.locator(`tr[data-id="${subId}"] td[data-label="Próxima renovación"] time`).textContent()).toMatch(/^\d{1,2} de [a-z]+\.? de \d{4}$/);
      // In business terms: the customer (linking to the subscription), the plan and its price in words.
      expect(await page.locator(`tr[data-id="${subId}"] td[data-label="Cliente"] a`).textContent()).toBe('Marta Ruiz');
      expect(await page.locator(`tr[data-id="${subId}"] td[data-label="Plan"]`).textContent()).toMatch(/ · \$ 39\.900 al mes$/);
      // The API's values in Spanish words, the value itself kept beside them.
      expect(await page.locator(`tr[data-id="${subId}"] td[data-label="Estado"] [data-value="active"]`).textContent()).toBe('Activa');
      expect(await page.locator('select#flt-status option[value="past_due"]').textContent()).toBe('Pago vencido');
      await screenshot(page, 'dashboard-subscriptions-laptop');
      await page.locator(`tr[data-id="${subId}"] a`).first().click();
      await page.waitForURL(new RegExp(`/dashboard/subscriptions/${subId}$`));
      expect(await page.locator('[data-field="status"]').textContent()).toBe('Activa');
      expect(await page.locator('[data-field="status"]').getAttribute('data-value')).toBe('active');
      const timeline = await page.locator('.timeline li[data-type]').evaluateAll((items) => items.map((li) => li.getAttribute('data-type')));
      expect(timeline[0]).toBe('subscription.created');
      expect(await page.locator('.timeline li[data-type="subscription.created"]').first().textContent()).toContain('creó la suscripción: Plan E2E · $ 39.900 al mes');
      expect(timeline).toContain('subscription.activated');
      await screenshot(page, 'dashboard-subscription-laptop');
      await page.locator('[data-as-of]').first().click();
      await page.waitForURL(/as_of=evt_/);
      expect(await page.locator('[data-field="status"]').getAttribute('data-value')).toBe('incomplete');
      expect(await page.locator('[data-field="status"]').textContent()).toBe('Pago inicial pendiente');
      await screenshot(page, 'dashboard-as-of-laptop');
      await page.getByRole('link', { name: 'volver al presente' }).click();
      await page.locator('select[name="cancel_at"]').selectOption('now');
      await page.getByRole('button', { name: 'Cancelar suscripción' }).click();
      await page.waitForURL(/done=cancel/);
      expect(await page.locator('[data-field="status"]').textContent()).toBe('Cancelada');
      // The timeline names who canceled it: the member, by e-mail and role in words.
      const canceledEntry = page.locator('.timeline li[data-type="subscription.canceled"]');
      expect(await canceledEntry.textContent()).toContain(`${owner.email} (Propietario) canceló`);
      expect(await canceledEntry.getAttribute('data-actor')).toBe(owner.memberId);
      await screenshot(page, 'dashboard-subscription-canceled-laptop');
      // The phone size of the same pages.
      await page.setViewportSize(VIEWPORTS.phone);
      await screenshot(page, 'dashboard-subscription-phone');
      await page.goto(`${server.base}/dashboard/subscriptions`);
      await screenshot(page, 'dashboard-subscriptions-phone');
      // The switch goes to live mode and back without asking for anything.
      await page.getByRole('button', { name: 'Cambiar a en vivo' }).click();
      await page.waitForURL(/\/dashboard\/subscriptions/); // the same list, in the other mode
      expect(await page.locator('h1').textContent()).toBe('Suscripciones');
      expect(await page.locator('[data-mode]').getAttribute('data-mode')).toBe('live');
      expect(await page.locator('input[type="password"]').count()).toBe(0);
      expect(await page.content()).not.toContain(subId);
      await page.getByRole('button', { name: 'Cambiar a prueba' }).click();
      await page.waitForURL(/\/dashboard\/subscriptions/);
      expect(await page.locator('[data-mode]').getAttribute('data-mode')).toBe('test');
      expect(await page.locator(`tr[data-id="${subId}"]`).count()).toBe(1);
      await page.getByRole('button', { name: 'Cambiar a en vivo' }).click();
      await page.waitForURL(/\/dashboard\/subscriptions/);
      expect(await page.locator('[data-mode]').getAttribute('data-mode')).toBe('live');
      expect(await page.content()).not.toContain(subId);
      await screenshot(page, 'dashboard-live-phone');
      for (const list of ['products', 'prices', 'customers', 'collections', 'charges', 'events']) {
        await page.goto(`${server.base}/dashboard/${list}`);
        expect(await page.locator('table.list tbody tr').count()).toBe(0);
      }
      // English on request, kept across links and form posts.
      await page.goto(`${server.base}/dashboard/products?locale=en`);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');
      expect(await page.locator('h1').textContent()).toBe('Products');
      expect(await page.locator('[data-mode]').textContent()).toBe('LIVE MODE');
      await page.getByRole('link', { name: 'Customers' }).click();
      await page.waitForURL(/\/dashboard\/customers$/);
      expect(await page.locator('h1').textContent()).toBe('Customers');
      await screenshot(page, 'dashboard-english-phone');
      await page.getByRole('link', { name: 'Español' }).click();
      expect(await page.locator('h1').textContent()).toBe('Clientes');
      const hidden = await page.goto(`${server.base}/dashboard/subscriptions/${subId}`);
      expect(hidden!.status()).toBe(404);
    } finally {
      await b.close();
    }
  });

  test('every list fits a laptop (1366 px) without sideways scrolling and reads as cards on a phone (390 px); every link of the dashboard opens a page', async () => {
    // Data in every list, with long values: a customer's long e-mail and name, a product's long name.
    const s = await billingSetup(api());
    const customer = (await api().post('/v1/customers', { email: `una.direccion.de.correo.bastante.larga.${Date.now()}@empresa-de-ejemplo.com.co`, name: 'María Fernanda Restrepo Villegas de la Cruz' })).body;
    await api().post('/v1/products', { name: 'Plan Empresarial Plus con soporte prioritario y facturación electrónica' });
    const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], collection_method: 'charge', payment_information: card() })).body;
    const oneTime = (await api().post('/v1/prices', { product_id: s.product.id, type: 'one_time', unit_price: '1250000.50', currency: 'COP' })).body;
    await api().post('/v1/collections', { customer: customer.id, items: [{ price: oneTime.id }], collection_method: 'collect', days_until_due: 5 });
    await api().post('/v1/test_helpers/test_clocks', { frozen_time: '2026-01-15T12:00:00.000Z', name: 'Reloj de la demostración de renovaciones' });
    const lists = ['subscriptions', 'prices', 'products', 'customers', 'collections', 'charges', `payment_methods?customer=${customer.id}`, 'test_clocks', 'events'];
    const b = await openBrowser(VIEWPORTS.laptop);
    try {
      const { page } = b;
      const member = await makeMember(server, keys.id, 'owner');
      await page.goto(`${server.base}/dashboard?locale=es`);
      await signIn(page, member.email, member.password);
      await page.waitForURL(/\/dashboard\/home/);
      for (const list of lists) {
        const name = list.split('?')[0];
        await page.setViewportSize(VIEWPORTS.laptop);
        await page.goto(`${server.base}/dashboard/${list}`);
        expect(await page.locator('table.list tbody tr').count()).toBeGreaterThan(0);
        await screenshot(page, `dashboard-list-${name}-laptop`);
        // Every column shows, the table scrolls nothing sideways, nor does the page.
        expect([name, await sideways(page, '.table-wrap')]).toEqual([name, 0]);
        expect([name, await sideways(page)]).toEqual([name, 0]);
        const headers = await page.locator('table.list thead th').count();
        const lastHeader = await page.locator('table.list thead th').last().boundingBox();
        expect(lastHeader!.x + lastHeader!.width).toBeLessThanOrEqual(VIEWPORTS.laptop.width);
        expect(headers).toBeGreaterThan(2);
        // A phone: rows read as cards (label and value), the page does not scroll sideways.
        await page.setViewportSize(VIEWPORTS.phone);
        expect([name, await sideways(page)]).toEqual([name, 0]);
        expect(await page.locator('table.list thead').isVisible()).toBe(false);
        await screenshot(page, `dashboard-list-${name}-phone`);
      }
      await page.setViewportSize(VIEWPORTS.laptop);
      await page.goto(`${server.base}/dashboard/subscriptions/${sub.id}`);
      await screenshot(page, 'dashboard-subscription-detail-laptop');
      // Every link of every page reachable from the lists, in both languages, opens a page.
      for (const locale of ['es', 'en']) {
        const crawl = await crawlLinks(browserFetch(page), [`/dashboard/subscriptions?locale=${locale}`], { within: (p) => p.startsWith('/dashboard'), maxRequests: 5000 });
        expect(describeBroken(crawl.broken)).toEqual([]);
        expect(crawl.links).toBeGreaterThan(50);
      }
    } finally {
      await b.close();
    }
  });
});
