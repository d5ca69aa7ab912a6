import { jest } from '@jest/globals';
import type { Page } from 'playwright-core';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { makeMember } from '../support/dashboard-member.js';
import { advance, clockAndCustomer } from '../support/lifecycle.js';
import { hasChromium, openBrowser, screenshot, VIEWPORTS } from './support/browser.js';
import { startServer } from './support/server.js';

/**
 * The dashboard's home page as a person sees it, in real headless Chromium: half a year of a small
 * business (two monthly subscriptions, one canceled, a renewal collected every month) as cards, charts
 * and tables at a phone's width (390 px) and a laptop's (1280 px). Screenshots go to test-output/e2e/.
 */
const describeWithBrowser = hasChromium() || process.env.CI ? describe : describe.skip;
jest.setTimeout(180_000);

let server: Awaited<ReturnType<typeof startServer>>;
let account: { id: string; test_key: string };
const closers: Array<() => Promise<void>> = [];
const api = () => server.as(account.test_key);
const HOME = '/dashboard/home?from=2027-01-01&to=2027-06-30&interval=month&currency=COP&as_of=2027-06-30T12%3A00';

beforeAll(async () => {
  if (!hasChromium()) return;
  server = await startServer();
  account = await server.account('Tienda Inicio');
  const basic = await billingSetup(api(), { unitPrice: '49900' });
  const plus = await billingSetup(api(), { unitPrice: '129900' });
  const a = await clockAndCustomer(api(), '2027-01-10T15:00:00.000Z');
  expect((await api().post('/v1/subscriptions', { customer: a.customer.id, items: [{ price: basic.monthly.id }], payment_information: card() })).body.status).toBe('active');
  const b = await clockAndCustomer(api(), '2027-02-05T15:00:00.000Z');
  const subB = (await api().post('/v1/subscriptions', { customer: b.customer.id, items: [{ price: plus.monthly.id }], payment_information: card() })).body;
  expect(subB.status).toBe('active');
  await advance(api(), b.clock.id, '2027-04-20T15:00:00.000Z');
  expect((await api().post(`/v1/subscriptions/${subB.id}/cancel`, { cancel_at: 'now' })).status).toBe(200);
  await advance(api(), a.clock.id, '2027-06-15T15:00:00.000Z');
});
afterAll(async () => {
  for (const close of closers) await close();
  await server?.close();
});

async function signedIn(viewport: { width: number; height: number }) {
  const b = await openBrowser(viewport);
  closers.push(b.close);
  const { email, password } = await makeMember(server, account.id, 'owner');
  await b.page.goto(`${server.base}/dashboard`);
  await b.page.getByLabel('Correo electrónico').fill(email);
  await b.page.getByLabel('Contraseña').fill(password);
  await b.page.getByRole('button', { name: 'Ingresar' }).click();
  await b.page.waitForURL(/\/dashboard\//);
  return b.page;
}
const sideways = (page: Page, selector = 'html') => page.locator(selector).first().evaluate((el) => el.scrollWidth - el.clientWidth);

describeWithBrowser('the dashboard home page', () => {
  test('on a phone (390 px): no sideways scrolling, the cards, three visible charts and their tables', async () => {
    const page = await signedIn(VIEWPORTS.phone);
    await page.goto(`${server.base}/dashboard`);
    await page.waitForURL(/\/dashboard\/home/);
    await page.goto(server.base + HOME);
    expect(await page.title()).toContain('Inicio');
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(await page.locator('[data-figure]').count()).toBe(11);
    const charts = page.locator('svg.chart');
    expect(await charts.count()).toBe(3);
    for (let i = 0; i < 3; i++) {
      await expect(charts.nth(i).isVisible()).resolves.toBe(true);
      const box = (await charts.nth(i).boundingBox())!;
      expect(box.width).toBeGreaterThan(300);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(box.height).toBeGreaterThan(150);
    }
    expect(await page.locator('table.report-table').count()).toBe(3);
    expect(await page.locator('table.report-table caption').count()).toBe(3);
    // The MRR card shows the basic plan's price: the plus plan was canceled in April.
    expect(await page.locator('[data-figure="mrr"] .figure').textContent()).toBe('$ 49.900');
    await screenshot(page, 'dashboard-home-phone');
    // A table opened on the phone reads as cards, still without sideways scrolling.
    await page.locator('[data-chart="movements"] summary').click();
    await expect(page.locator('table[data-table="movements"]').isVisible()).resolves.toBe(true);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.locator('[data-chart="movements"]').screenshot({ path: 'test-output/e2e/dashboard-home-movements-table-phone.png' });
    // The movements page, from the link under the chart.
    await page.locator('[data-action="movements"]').click();
    await page.waitForURL(/\/dashboard\/home\/movements/);
    expect(await page.locator('table.movements tbody tr').count()).toBeGreaterThanOrEqual(3);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'dashboard-home-movements-phone');
  });

  test('on a laptop (1280 px): charts side by side, tables open without sideways scrolling', async () => {
    const page = await signedIn({ width: 1280, height: 860 });
    await page.goto(server.base + HOME);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    // MRR and net revenue side by side; the movements (five series, a wide table) below, the whole width.
    const [mrr, revenue, movements] = await Promise.all(['mrr', 'revenue', 'movements'].map((c) => page.locator(`[data-chart="${c}"]`).boundingBox()));
    expect(Math.round(mrr!.y)).toBe(Math.round(revenue!.y));
    expect(revenue!.x).toBeGreaterThan(mrr!.x + mrr!.width);
    expect(movements!.y).toBeGreaterThan(mrr!.y + mrr!.height);
    expect(movements!.width).toBeGreaterThan(mrr!.width * 1.8);
    for (const summary of await page.locator('.chart-block summary').all()) await summary.click();
    for (const wrap of await page.locator('.chart-block .table-wrap').all()) expect(await wrap.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(await page.locator('svg.chart rect.chart-bar').count()).toBe(6 * 5 + 6 * 2);
    await screenshot(page, 'dashboard-home-laptop');
    await page.goto(`${server.base}${HOME}&locale=en`);
    expect(await page.locator('h1').textContent()).toBe('Home');
    await screenshot(page, 'dashboard-home-laptop-en');
  });
});
