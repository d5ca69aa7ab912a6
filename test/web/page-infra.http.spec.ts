import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

test('an unknown page is a friendly HTML 404 in Spanish by default, English with locale=en', async () => {
  const es = await t.http().get('/checkout/nope');
  expect(es.status).toBe(404);
  expect(es.headers['content-type']).toMatch(/^text\/html/);
  expect(es.text).toContain('<html lang="es-CO">');
  expect(es.text).toContain('Página no encontrada');
  expect(es.text).toContain('<footer class="site-footer">Pago seguro</footer>');
  const en = await t.http().get('/checkout/nope?locale=en');
  expect(en.text).toContain('<html lang="en">');
  expect(en.text).toContain('Page not found');
  expect(en.text).toContain('<footer class="site-footer">Secure payment</footer>');
});

test('pages carry a strict CSP; the API does not change', async () => {
  const page = await t.http().get('/checkout/nope');
  const csp = page.headers['content-security-policy'];
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(page.headers['cache-control']).toBe('no-store');
  const api = await t.http().get('/v1/products');
  expect(api.status).toBe(401);
  expect(api.headers['content-security-policy']).toBeUndefined();
  expect(api.body.error.code).toBe('missing_api_key');
});

test('the stylesheet is served; a form post to the API is still 415', async () => {
  const css = await t.http().get('/checkout/assets/pages.css');
  expect(css.status).toBe(200);
  expect(css.headers['content-type']).toMatch(/^text\/css/);
  // The icon every browser asks for: no 404 in a visitor's console.
  for (const path of ['/favicon.ico', '/favicon.svg']) {
    const icon = await t.http().get(path).buffer(true);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(String(icon.body)).toContain('<svg');
  }
  const { test_key } = await t.account();
  const res = await t.as(test_key).post('/v1/products').type('form').send('name=x');
  expect(res.status).toBe(415);
  expect(res.body.error.code).toBe('unsupported_media_type');
});
