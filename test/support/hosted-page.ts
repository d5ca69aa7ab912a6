import request from 'supertest';
import type { TestApp } from './test-app.js';

/** The CSRF token of a page's form (`<input name="_csrf">`), or '' when it has none. */
export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A checkout session's `url`: the page's path and the signed token after `#`. */
export const partsOf = (url: string) => ({ path: new URL(url).pathname, token: url.split('#')[1] });

/**
 * A browser (a cookie-keeping supertest agent) that opened a checkout session's address as a real one
 * does: the boot page, the token posted once (what its script does), then the session page.
 */
export async function openSession(t: TestApp, url: string) {
  const { path, token } = partsOf(url);
  const browser = request.agent(t.app.getHttpServer());
  const boot = await browser.get(path);
  const opened = await browser.post(`${path}/open`).type('form').send({ _csrf: csrfOf(boot.text), token });
  return { browser, boot, opened, path, page: await browser.get(path) };
}
