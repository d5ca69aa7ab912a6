import type { Response } from 'supertest';
import type { TestApp } from './test-app.js';

/** A browser-like visitor for page tests: keeps cookies, reads the CSRF token of the last page. */
export function pageVisitor(t: TestApp) {
  const jar = new Map<string, string>();
  let csrf = '';
  const remember = (res: Response) => {
    for (const line of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const m = /name="_csrf" value="([^"]+)"/.exec(res.text ?? '');
    if (m) csrf = m[1];
    return res;
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    jar,
    get csrf() {
      return csrf;
    },
    async get(path: string) {
      return remember(await t.http().get(path).set('Cookie', cookie()));
    },
    async post(path: string, fields: Record<string, string> = {}, withCsrf = true) {
      return remember(await t.http().post(path).set('Cookie', cookie()).type('form').send({ ...(withCsrf ? { _csrf: csrf } : {}), ...fields }));
    },
  };
}
