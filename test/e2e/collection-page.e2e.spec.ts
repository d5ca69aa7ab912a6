import { jest } from '@jest/globals';
import { billingSetup } from '../support/billing-fixtures.js';
import type { Page } from 'playwright-core';
import { type E2E, startE2E } from './browser.js';

/** Issue 10 §5 (collection page part), in real headless Chromium. */
jest.setTimeout(120_000);

let e: E2E;
let key: string;
beforeAll(async () => {
  e = await startE2E();
  key = (await e.t.account('Gimnasio Andino')).test_key;
});
afterAll(() => e?.close());

const api = () => e.t.as(key);

/** Waits for the page's heading to read `text` (after a navigation). */
async function heading(page: Page, text: string) {
  await page.locator('h1', { hasText: text }).waitFor({ timeout: 20_000 });
  expect((await page.locator('h1').textContent())?.trim()).toBe(text);
}

async function collectCollection() {
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 })).body;
  return (await api().get(`/v1/collections/${sub.latest_collection}`)).body;
}

test('a collect collection paid on its page with an approving card', async () => {
  const col = await collectCollection();
  const page = await e.page();
  await page.goto(col.checkout_url);
  await heading(page, 'Pago pendiente');
  expect(await page.locator('html').getAttribute('lang')).toBe('es-CO');
  expect(await page.locator('.amount').first().textContent()).toBe('$ 49.900');
  await e.shoot(page, 'collection-form');
  await page.getByLabel('Número de la tarjeta').fill('4242 4242 4242 4242');
  await page.getByLabel('Vencimiento (MM/AA)').fill('12/30');
  await page.getByLabel('Código de seguridad (CVC)').fill('123');
  await page.getByLabel('Nombre en la tarjeta').fill('Ana Gómez');
  await page.getByRole('button', { name: /Pagar/ }).click();
  await heading(page, 'Pagado');
  await e.shoot(page, 'collection-paid');
  expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('paid');
  await page.close();
});

test('a declined card, then an approving one on the same page', async () => {
  const col = await collectCollection();
  const page = await e.page();
  await page.goto(col.checkout_url);
  await page.getByLabel('Número de la tarjeta').fill('4000000000000002');
  await page.getByLabel('Vencimiento (MM/AA)').fill('12/30');
  await page.getByLabel('Código de seguridad (CVC)').fill('123');
  await page.getByRole('button', { name: /Pagar/ }).click();
  await page.getByRole('alert').filter({ hasText: 'Tu tarjeta fue rechazada' }).waitFor();
  // The number and CVC are not sent back; the expiry is kept.
  expect(await page.getByLabel('Número de la tarjeta').inputValue()).toBe('');
  expect(await page.getByLabel('Vencimiento (MM/AA)').inputValue()).toBe('12/30');
  await e.shoot(page, 'collection-declined');
  await page.getByLabel('Número de la tarjeta').fill('5555555555554444');
  await page.getByLabel('Código de seguridad (CVC)').fill('123');
  await page.getByRole('button', { name: /Pagar/ }).click();
  await heading(page, 'Pagado');
  const charges = (await api().get(`/v1/charges?collection=${col.id}`)).body.data;
  expect(charges.map((c: { status: string }) => c.status).sort()).toEqual(['failed', 'succeeded']);
  await page.close();
});

test('a PSE payment approved on the simulated bank page', async () => {
  const col = await collectCollection();
  const page = await e.page();
  await page.goto(`${col.checkout_url}?locale=en`);
  await heading(page, 'Payment due');
  await page.getByLabel('PSE (debit from your bank account)').check();
  await page.getByLabel('Bank', { exact: true }).selectOption('1007');
  await page.getByRole('button', { name: /Pay/ }).click();
  await heading(page, 'Test bank (PSE)');
  expect(await page.getByText('Bancolombia').isVisible()).toBe(true);
  await e.shoot(page, 'pse-bank');
  expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('processing');
  await page.getByRole('button', { name: 'Approve payment' }).click();
  await heading(page, 'Paid');
  expect(page.url()).toBe(`${col.checkout_url}?locale=en`);
  expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('paid');
  await page.close();
});
