import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../support/free-port.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * End-to-end harness: the whole service listening on a free local port (CHECKOUT_URL pointing at it)
 * and Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven headless by playwright-core.
 * No browser is ever downloaded. Screenshots go to test-output/e2e/ (gitignored).
 */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const PHONE = { width: 390, height: 844 };
export const LAPTOP = { width: 1366, height: 768 };
const OUTPUT = join(process.cwd(), 'test-output', 'e2e');

export interface E2E {
  t: TestApp;
  base: string;
  browser: BrowserContext;
  /** A new tab at the phone size. */
  page(): Promise<Page>;
  /** Full-page screenshots of the page at the phone and the laptop sizes: test-output/e2e/<name>-{phone,laptop}.png. */
  shoot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startE2E(): Promise<E2E> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ env: { PORT: String(port), CHECKOUT_URL: `${base}/checkout` } });
  await t.app.listen({ port, host: '127.0.0.1' });
  const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'e2e-chromium-')), {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
    viewport: PHONE,
    locale: 'es-CO',
  });
  mkdirSync(OUTPUT, { recursive: true });
  return {
    t,
    base,
    browser,
    page: () => browser.newPage(),
    async shoot(page, name) {
      await page.setViewportSize(PHONE);
      await page.screenshot({ path: join(OUTPUT, `${name}-phone.png`), fullPage: true });
      await page.setViewportSize(LAPTOP);
      await page.screenshot({ path: join(OUTPUT, `${name}-laptop.png`), fullPage: true });
      await page.setViewportSize(PHONE);
    },
    async close() {
      await browser.close();
      await t.close();
    },
  };
}
