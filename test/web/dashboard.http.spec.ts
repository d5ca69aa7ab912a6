import { EVENT_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { signInMember } from '../support/dashboard-member.js';
import { pageVisitor } from '../support/page-session.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let keys: { id: string; test_key: string; live_key: string };
beforeAll(async () => {
  t = await startTestApp();
  keys = await t.account('Dash merchant');
});
afterAll(() => t.close());

/** A new owner of the account, signed in (test mode unless asked). */
async function signedIn(mode: 'test' | 'live' = 'test') {
  return (await signInMember(t, keys.id, 'owner', { mode })).visitor;
}
/** The sign-in form's refusal (the alert above the form). */
const loginError = (html: string) => /<p class="alert alert-error" role="alert" id="login-error">([^<]*)</.exec(html)?.[1];

const idFrom = (location: string) => location.split('/').pop()!.split('?')[0];
/** The actions a detail page offers (its forms' buttons), in page order. */
const offered = (html: string) => [...html.matchAll(/data-action="([a-z_]+)"/g)].map((m) => m[1]);

test('sign-in: a wrong password is refused with the same words as an unknown e-mail; the right one opens test mode with a signed HttpOnly cookie; a key is no way in', async () => {
  const { email, password } = await signInMember(t, keys.id, 'support');
  const v = pageVisitor(t);
  await v.get('/dashboard');
  const wrong = await v.post('/dashboard/login', { email, password: 'not the password at all' });
  expect(wrong.status).toBe(401);
  expect(loginError(wrong.text)).toBe('El correo o la contraseña no son correctos.');
  // The e-mail stays in its field, the password typed is never sent back.
  expect(wrong.text).toContain(`value="${email}"`);
  expect(wrong.text).not.toContain('not the password at all');
  const unknown = await v.post('/dashboard/login', { email: 'nobody.here@example.com', password });
  expect(unknown.status).toBe(401);
  expect(loginError(unknown.text)).toBe(loginError(wrong.text));
  // The old way in, a secret key in the form, is no way in (not even with the e-mail field empty).
  const byKey = await v.post('/dashboard/login', { key: keys.test_key });
  expect(byKey.status).toBe(400);
  expect(([] as string[]).concat(byKey.headers['set-cookie'] ?? []).some((c) => /^dashboard_session=[^;]/.test(c))).toBe(false);
  expect((await v.get('/dashboard/subscriptions')).status).toBe(303);
  const ok = await v.post('/dashboard/login', { email, password });
  expect(ok.status).toBe(303);
  expect(ok.headers.location).toBe('/dashboard/subscriptions'); // support may not read reports: its lists
  const cookie = ([] as string[]).concat(ok.headers['set-cookie']).find((c) => c.startsWith('dashboard_session='))!;
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Lax/);
  expect(cookie).not.toContain(encodeURIComponent(password));
  const list = await v.get('/dashboard/subscriptions');
  expect(list.status).toBe(200);
  expect(list.text).toContain('data-mode="test"');
  expect(list.text).toContain(`Sesión de ${email} (Soporte)`);
  expect((await pageVisitor(t).get('/dashboard/subscriptions')).status).toBe(303);
});

test('the mode switch goes test ⇄ live and back without asking for anything; each mode shows only its own objects', async () => {
  const api = t.as(keys.test_key);
  const testProduct = (await api.post('/v1/products', { name: 'Plan Prueba Switch' })).body;
  const liveProduct = (await t.as(keys.live_key).post('/v1/products', { name: 'Plan Vivo Switch' })).body;
  const v = await signedIn();
  const inTest = await v.get('/dashboard/products');
  expect(inTest.text).toContain('data-mode="test"');
  expect(inTest.text).toContain('data-switch="live"');
  expect(inTest.text).toContain(testProduct.id);
  expect(inTest.text).not.toContain(liveProduct.id);
  const toLive = await v.post('/dashboard/switch', {});
  expect(toLive.status).toBe(303);
  expect(toLive.headers.location).toBe('/dashboard/home'); // from nowhere in particular: an owner lands on the business
  // From a list: the same list and filters in the other mode, from its first page; never a detail page or another site.
  const fromList = await v.post('/dashboard/switch', { back: '/dashboard/customers?q=ana&starting_after=cus_x' });
  expect(fromList.headers.location).toBe('/dashboard/customers?q=ana');
  expect((await v.post('/dashboard/switch', { back: '/dashboard/subscriptions/sub_123' })).headers.location).toBe('/dashboard/home');
  expect((await v.post('/dashboard/switch', { back: 'https://evil.example/dashboard/customers' })).headers.location).toBe('/dashboard/home');
  expect((await v.post('/dashboard/switch', { back: '//evil.example/dashboard/customers' })).headers.location).toBe('/dashboard/home');
  const live = await v.get('/dashboard/products');
  expect(live.status).toBe(200);
  expect(live.text).toContain('data-mode="live"');
  expect(live.text).toContain('MODO EN VIVO');
  expect(live.text).toContain('data-switch="test"');
  expect(live.text).toContain(liveProduct.id);
  expect(live.text).not.toContain(testProduct.id);
  expect((await v.get(`/dashboard/products/${testProduct.id}`)).status).toBe(404);
  expect((await v.get(`/dashboard/products/${liveProduct.id}`)).status).toBe(200);
  expect((await v.post('/dashboard/switch', {})).status).toBe(303);
  const back = await v.get('/dashboard/products');
  expect(back.text).toContain('data-mode="test"');
  expect(back.text).toContain(testProduct.id);
  // Not signed in: the switch leads to the sign-in page and switches nothing.
  const anonymous = pageVisitor(t);
  await anonymous.get('/dashboard');
  const refused = await anonymous.post('/dashboard/switch', {});
  expect(refused.status).toBe(303);
  expect(refused.headers.location).toBe('/dashboard');
});

test('a member of one account never sees another account\'s objects (404), in lists, details and actions', async () => {
  const other = await t.account('Otra tienda');
  const theirs = t.as(other.test_key);
  const product = (await theirs.post('/v1/products', { name: 'Plan Ajeno' })).body;
  const price = (await theirs.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '19900', currency: 'COP' })).body;
  const customer = (await theirs.post('/v1/customers', { email: `ajeno.${Date.now()}@example.com`, name: 'Ana Ajena' })).body;
  const sub = (await theirs.post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5 })).body;
  // The other account's own member sees it (the ids are right).
  const theirMember = (await signInMember(t, other.id, 'owner')).visitor;
  expect((await theirMember.get(`/dashboard/subscriptions/${sub.id}`)).status).toBe(200);
  const v = await signedIn();
  for (const path of [`/dashboard/products/${product.id}`, `/dashboard/prices/${price.id}`, `/dashboard/customers/${customer.id}`, `/dashboard/subscriptions/${sub.id}`, `/dashboard/subscriptions/${sub.id}?as_of=${new Date().toISOString()}`]) {
    const res = await v.get(path);
    expect([path, res.status]).toEqual([path, 404]);
    expect(res.text).not.toContain('Ana Ajena');
  }
  for (const list of ['products', 'customers', 'subscriptions', 'events']) expect((await v.get(`/dashboard/${list}`)).text).not.toMatch(new RegExp(`${product.id}|${customer.id}|${sub.id}`));
  await v.get('/dashboard/subscriptions');
  expect((await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' })).status).toBe(404);
  expect((await theirs.get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
});

test('forms validate with the API\'s rules and show the refusal next to the field; creation runs the API\'s command with the dashboard as actor', async () => {
  const { visitor: v, memberId } = await signInMember(t, keys.id, 'developer');
  await v.get('/dashboard/new/price');
  const invalid = await v.post('/dashboard/new/price', { product_id: 'prod_missing', type: 'recurring', billing_period: 'month', billing_interval: 'x', currency: 'COP', unit_price: '100' });
  expect(invalid.status).toBe(400);
  expect(invalid.text).toMatch(/data-error-for="billing_interval">Intervalo de facturación: el valor no es válido\.</);
  await v.get('/dashboard/new/product');
  const created = await v.post('/dashboard/new/product', { name: 'Plan Oro', description: 'Gold' });
  expect(created.status).toBe(303);
  const productId = idFrom(created.headers.location);
  expect(productId).toMatch(/^prod_/);
  const events = await t.app.get<EventStore>(EVENT_STORE).readStream(`product-${productId}`);
  expect(events[0].metadata.actor).toEqual({ type: 'dashboard', member: memberId });
  await v.get('/dashboard/new/price');
  const missing = await v.post('/dashboard/new/price', { product_id: productId, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP' });
  expect(missing.status).toBe(400);
  expect(missing.text).toContain('data-error-for="unit_price"');
  // Live mode (the switch) sees none of the test objects.
  const live = await signedIn('live');
  expect((await live.get('/dashboard/products')).text).not.toContain(productId);
  expect((await live.get(`/dashboard/products/${productId}`)).status).toBe(404);
});

test('a charge subscription by hand, its timeline, as_of its first event, then canceled', async () => {
  const v = await signedIn();
  await v.get('/dashboard/new/product');
  const productId = idFrom((await v.post('/dashboard/new/product', { name: 'Plan Plata' })).headers.location);
  await v.get('/dashboard/new/price');
  const priceId = idFrom((await v.post('/dashboard/new/price', { product_id: productId, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP', unit_price: '29900' })).headers.location);
  await v.get('/dashboard/new/customer');
  const customerId = idFrom((await v.post('/dashboard/new/customer', { email: `dash.${Date.now()}@example.com`, name: 'Dora Díaz' })).headers.location);
  await v.get('/dashboard/new/subscription');
  const res = await v.post('/dashboard/new/subscription', { customer: customerId, 'items[0][price]': priceId, 'items[0][quantity]': '1', collection_method: 'charge', 'payment_information[card][number]': '4242424242424242', 'payment_information[card][exp_month]': '12', 'payment_information[card][exp_year]': '2030', 'payment_information[card][cvc]': '123' });
  expect(res.status).toBe(303);
  const subId = idFrom(res.headers.location);
  expect((await t.as(keys.test_key).get(`/v1/subscriptions/${subId}`)).body.status).toBe('active');
  expect((await v.get('/dashboard/subscriptions?status=active')).text).toContain(subId);
  const detail = await v.get(`/dashboard/subscriptions/${subId}`);
  // Only what the subscription's status allows is offered: an active one can be canceled or paused, not resumed.
  expect(offered(detail.text)).toEqual(['cancel', 'pause']);
  // Its items carry no total of their own: no empty column for one.
  expect(detail.text).not.toContain(`data-label="Total"`);
  const firstEvent = /data-as-of="(evt_[0-9a-f]+)"/.exec(detail.text)![1];
  const asOf = await v.get(`/dashboard/subscriptions/${subId}?as_of=${firstEvent}`);
  expect(asOf.text).toContain('data-field="status" data-value="incomplete">Pago inicial pendiente<');
  await v.get(`/dashboard/subscriptions/${subId}`);
  expect((await v.post(`/dashboard/subscriptions/${subId}/cancel`, { cancel_at: 'now' })).status).toBe(303);
  expect((await t.as(keys.test_key).get(`/v1/subscriptions/${subId}`)).body.status).toBe('canceled');
  // A canceled subscription is offered nothing; a form posted anyway gets the command's refusal.
  expect(offered((await v.get(`/dashboard/subscriptions/${subId}`)).text)).toEqual([]);
  const again = await v.post(`/dashboard/subscriptions/${subId}/pause`, {});
  expect(again.status).toBe(409);
  // The refusal in the page's words (the state named in words too), never the API's English message.
  const apiMessage = (await t.as(keys.test_key).post(`/v1/subscriptions/${subId}/pause`, {})).body.error.message;
  expect(again.text).toContain('No se puede hacer en su estado actual (Cancelada).');
  expect(again.text).not.toContain(apiMessage.replace(/'/g, '&#39;'));
});

test('a standalone collection by hand: send, pay out of band with proof, refund; another voided; a test clock advanced; lists filter and page', async () => {
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Visita técnica' })).body;
  const oneTime = (await api.post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '80000', currency: 'COP' })).body;
  const customer = (await api.post('/v1/customers', { email: `col.${Date.now()}@example.com`, name: 'Eva Ruiz' })).body;
  const v = await signedIn();
  await v.get('/dashboard/new/collection');
  const created = await v.post('/dashboard/new/collection', { customer: customer.id, 'items[0][price]': oneTime.id, 'items[0][quantity]': '2', collection_method: 'collect', days_until_due: '5' });
  expect(created.status).toBe(303);
  const colId = idFrom(created.headers.location);
  expect((await api.get(`/v1/collections/${colId}`)).body).toMatchObject({ status: 'pending', total: '160000.00' });
  expect(offered((await v.get(`/dashboard/collections/${colId}`)).text)).toEqual(['pay_out_of_band', 'send', 'void']);
  expect((await v.post(`/dashboard/collections/${colId}/send`)).status).toBe(303);
  await v.get(`/dashboard/collections/${colId}`);
  const noProof = await v.post(`/dashboard/collections/${colId}/pay_out_of_band`, { out_of_band_proof: 'not a url' });
  expect(noProof.status).toBe(400);
  expect(noProof.text).toContain('data-error-for="out_of_band_proof"');
  expect((await v.post(`/dashboard/collections/${colId}/pay_out_of_band`, { out_of_band_proof: 'https://bank.example/receipt/77' })).status).toBe(303);
  expect((await api.get(`/v1/collections/${colId}`)).body).toMatchObject({ status: 'paid', paid_out_of_band: true, out_of_band_proof: 'https://bank.example/receipt/77' });
  expect(offered((await v.get(`/dashboard/collections/${colId}`)).text)).toEqual(['refund']);
  expect((await v.post(`/dashboard/collections/${colId}/refund`, { amount: '10000' })).status).toBe(303);
  const history = (await api.get(`/v1/events?object_id=${colId}&limit=50`)).body.data.map((e: { type: string }) => e.type);
  expect(history).toEqual(expect.arrayContaining(['collection.sent', 'collection.paid', 'collection.refunded']));
  await v.get('/dashboard/new/collection');
  const other = idFrom((await v.post('/dashboard/new/collection', { customer: customer.id, 'items[0][price]': oneTime.id, 'items[0][quantity]': '1', collection_method: 'collect', days_until_due: '5' })).headers.location);
  await v.get(`/dashboard/collections/${other}`);
  expect((await v.post(`/dashboard/collections/${other}/void`)).status).toBe(303);
  expect((await api.get(`/v1/collections/${other}`)).body.status).toBe('voided');
  // Filters and pages over the list query.
  const filtered = await v.get(`/dashboard/collections?customer=${customer.id}&status=voided`);
  expect(filtered.text).toContain(other);
  expect(filtered.text).not.toContain(`data-id="${colId}"`);
  const firstPage = await v.get(`/dashboard/collections?customer=${customer.id}&limit=1`);
  const next = /href="([^"]+)" rel="next"/.exec(firstPage.text)![1].replace(/&amp;/g, '&');
  const ids = (html: string) => [...html.matchAll(/data-id="([^"]+)"/g)].map((m) => m[1]);
  const secondPage = await v.get(next);
  expect([...ids(firstPage.text), ...ids(secondPage.text)].sort()).toEqual([colId, other].sort());
  expect(secondPage.text).not.toContain('rel="next"');
  expect((await v.get('/dashboard/collections?limit=500')).text).toContain('limit');
  // A test clock, advanced by hand.
  await v.get('/dashboard/new/test_clock');
  const clockId = idFrom((await v.post('/dashboard/new/test_clock', { frozen_time: '2026-01-01T00:00:00.000Z', name: 'demo' })).headers.location);
  await v.get(`/dashboard/test_clocks/${clockId}`);
  expect((await v.post(`/dashboard/test_clocks/${clockId}/advance`, { frozen_time: '2026-02-01T00:00:00.000Z' })).status).toBe(303);
  expect((await api.get(`/v1/test_helpers/test_clocks/${clockId}`)).body.frozen_time).toBe('2026-02-01T00:00:00.000Z');
  // Live mode has no test clocks.
  const live = await signedIn('live');
  expect((await live.get('/dashboard/test_clocks')).text).toContain('Los relojes de prueba solo están disponibles en modo de prueba.');
});

test('Spanish (es-CO) by default; English on request, kept by a cookie across links and form posts', async () => {
  const { email, password } = await signInMember(t, keys.id, 'owner');
  const v = pageVisitor(t);
  const login = await v.get('/dashboard');
  expect(login.text).toContain('<html lang="es-CO"');
  expect(login.text).toContain('Ingresa al panel');
  expect(login.text).toContain('<label for="email">Correo electrónico</label>');
  expect(login.text).toContain('<label for="password">Contraseña</label>');
  expect(login.text).not.toContain('Llave secreta');
  const bad = await v.post('/dashboard/login', { email, password: 'otra contraseña cualquiera' });
  expect(loginError(bad.text)).toBe('El correo o la contraseña no son correctos.');
  expect((await v.post('/dashboard/login', { email, password })).status).toBe(303);
  const list = await v.get('/dashboard/products');
  expect(list.text).toMatch(/<h1>Productos<\/h1>/);
  expect(list.text).toContain('MODO DE PRUEBA');
  expect(list.text).toContain('Nuevo producto');
  expect(list.text).toContain('Cerrar sesión');
  expect(list.text).toContain('<th scope="col" data-column="created_date">Creado</th>');
  expect(list.text).not.toMatch(/TEST MODE|Sign out|>Products</);
  // The footer speaks to the merchant, not the customer pages' "Pago seguro".
  expect(list.text).toContain('<footer class="site-footer">Panel del comercio</footer>');
  const form = await v.get('/dashboard/new/price');
  expect(form.text).toContain('Crear precio');
  expect(form.text).toContain('Precio unitario');
  // English once asked for: the page, then the next pages and a form post's answer without asking again.
  const en = await v.get('/dashboard/products?locale=en');
  expect(en.text).toContain('<html lang="en"');
  expect(en.text).toMatch(/<h1>Products<\/h1>/);
  expect(en.text).toContain('TEST MODE');
  expect(en.text).toContain('>Español</a>');
  expect(en.text).toContain('<footer class="site-footer">Merchant dashboard</footer>');
  expect((await v.get('/dashboard/customers')).text).toMatch(/<h1>Customers<\/h1>/);
  await v.get('/dashboard/new/price');
  const invalid = await v.post('/dashboard/new/price', { locale: 'en', type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP', unit_price: '100' });
  expect(invalid.status).toBe(400);
  expect(invalid.text).toContain('Create price');
  expect(invalid.text).toContain('data-error-for="product_id"');
  // Back to Spanish with the switch's link.
  expect((await v.get('/dashboard/customers?locale=es')).text).toMatch(/<h1>Clientes<\/h1>/);
  expect((await v.get('/dashboard/products')).text).toMatch(/<h1>Productos<\/h1>/);
});

test('amounts and dates go through the page formatters (es-CO: $ 49.900 and a Spanish date)', async () => {
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Formato' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '49900', currency: 'COP' })).body;
  const v = await signedIn();
  const detail = await v.get(`/dashboard/prices/${price.id}`);
  expect(detail.text).toMatch(/data-field="unit_price">\$ 49\.900</);
  expect(detail.text).toMatch(/data-field="created_date"><time[^>]*>\d{1,2} de [a-z]+ de \d{4}<\/time>/);
  const en = await v.get(`/dashboard/prices/${price.id}?locale=en`);
  expect(en.text).toMatch(/data-field="created_date"><time[^>]*>[A-Z][a-z]+ \d{1,2}, \d{4}<\/time>/);
});

test('the API\'s values in words of the page\'s language, the value kept beside them (lists, filters, details, forms)', async () => {
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Palabras' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '19900', currency: 'COP' })).body;
  const v = await signedIn();
  // A product is "Activo", a subscription "Activa": the words agree with the noun.
  const products = await v.get('/dashboard/products');
  expect(products.text).toContain(`<span class="status status-active" data-value="active">Activo</span>`);
  expect(products.text).toContain('<option value="archived" >Archivado</option>');
  const prices = await v.get(`/dashboard/prices?product_id=${product.id}`);
  expect(prices.text).toContain('<span data-value="recurring">Recurrente</span>');
  expect(prices.text).toContain('<span data-value="month">Mes</span>');
  expect(prices.text).toContain('<span data-value="true">Sí</span>');
  const detail = await v.get(`/dashboard/prices/${price.id}`);
  expect(detail.text).toContain('data-field="type" data-value="recurring">Recurrente<');
  // Values without words (ids, amounts, an event's type) show as the API gives them.
  expect(detail.text).toContain(`data-field="product_id"><a href="/dashboard/products/${product.id}"`);
  const events = await v.get('/dashboard/events');
  expect(events.text).toMatch(/<td data-label="Tipo"[^>]*>price\.created<\/td>/);
  // A form's options: the words and the API's value, which is what it posts.
  const form = await v.get('/dashboard/new/subscription');
  expect(form.text).toContain('<option value="charge" >Cobro automático (charge)</option>');
  const en = await v.get('/dashboard/products?locale=en');
  expect(en.text).toContain(`<span class="status status-active" data-value="active">Active</span>`);
  expect((await v.get(`/dashboard/prices/${price.id}`)).text).toContain('data-field="type" data-value="recurring">Recurring<');
});

test('a refused form speaks the page\'s language: Spanish in es-CO, English in en, naming the field by its label (the API keeps its own English)', async () => {
  const api = t.as(keys.test_key);
  const { email, password } = await signInMember(t, keys.id, 'owner');
  const v = pageVisitor(t);
  await v.get('/dashboard?locale=es');
  const empty = await v.post('/dashboard/login', { email: '', password: '' });
  expect(empty.status).toBe(400);
  expect(loginError(empty.text)).toBe('Escribe tu correo y tu contraseña.');
  expect(empty.text).not.toContain('Missing required param');
  expect((await v.post('/dashboard/login', { email, password })).status).toBe(303);
  // Creation forms: a missing name, a missing unit price, an unknown customer.
  await v.get('/dashboard/new/product?locale=es');
  const noName = await v.post('/dashboard/new/product', { description: 'sin nombre' });
  expect(noName.status).toBe(400);
  expect(noName.text).toMatch(/data-error-for="name">Nombre: este dato es obligatorio\.</);
  expect(noName.text).not.toContain('Missing required param');
  const product = (await api.post('/v1/products', { name: 'Plan Idiomas' })).body;
  await v.get('/dashboard/new/price');
  const noPrice = await v.post('/dashboard/new/price', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP' });
  expect(noPrice.text).toMatch(/data-error-for="unit_price">Precio unitario: este dato es obligatorio\.</);
  await v.get('/dashboard/new/subscription');
  const nobody = await v.post('/dashboard/new/subscription', { customer: 'cus_nadie', 'items[0][price]': 'price_nada', 'items[0][quantity]': '1', collection_method: 'charge' });
  expect(nobody.status).toBe(404);
  expect(nobody.text).toMatch(/Cliente: «cus_nadie» no existe\.|Precio: «price_nada» no existe\./);
  expect(nobody.text).not.toContain('No such');
  // A list filter the API refuses: worded, not `limit: …` in English.
  const badLimit = await v.get('/dashboard/collections?limit=500');
  expect(badLimit.status).toBe(400);
  expect(badLimit.text).toContain('limit: el valor no es válido.');
  // The same forms in English.
  await v.get('/dashboard/new/product?locale=en');
  const noNameEn = await v.post('/dashboard/new/product', { description: 'no name' });
  expect(noNameEn.text).toMatch(/data-error-for="name">Name: this field is required\.</);
  expect(noNameEn.text).not.toContain('Missing required param');
  await v.get('/dashboard/new/price');
  const noPriceEn = await v.post('/dashboard/new/price', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: '1', currency: 'COP' });
  expect(noPriceEn.text).toMatch(/data-error-for="unit_price">Unit price: this field is required\.</);
  const wrongPassword = pageVisitor(t);
  await wrongPassword.get('/dashboard?locale=en');
  expect(loginError((await wrongPassword.post('/dashboard/login', { email, password: 'not the right one' })).text)).toBe('The e-mail or the password is not right.');
  expect(loginError((await wrongPassword.post('/dashboard/login', { email: '', password: '' })).text)).toBe('Enter your e-mail and your password.');
  // The API itself still answers in its own words.
  expect((await api.post('/v1/products', {})).body.error.message).toBe('Missing required param: name.');
});

test('a cancellation scheduled for the period end is withdrawn from the dashboard ("Mantener la suscripción"), as the API\'s resume', async () => {
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Retiro' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '19900', currency: 'COP' })).body;
  const customer = (await api.post('/v1/customers', { email: `keep.${Date.now()}@example.com`, name: 'Rita Ruiz' })).body;
  const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5 })).body;
  const v = await signedIn();
  await v.get(`/dashboard/subscriptions/${sub.id}`);
  expect((await v.post(`/dashboard/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' })).status).toBe(303);
  const ending = await v.get(`/dashboard/subscriptions/${sub.id}`);
  expect(offered(ending.text)).toEqual(['cancel', 'keep']);
  expect(ending.text).toContain('Mantener la suscripción');
  const kept = await v.post(`/dashboard/subscriptions/${sub.id}/keep`);
  expect(kept.status).toBe(303);
  expect(kept.headers.location).toBe(`/dashboard/subscriptions/${sub.id}?done=keep`);
  expect((await api.get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'active', cancel_at: null });
  expect((await v.get(kept.headers.location)).text).toContain('cancelación retirada');
});
