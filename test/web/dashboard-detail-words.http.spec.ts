import { card } from '../support/billing-fixtures.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** A detail page's fields: label (tags stripped) and value (tags stripped), by the API's field name. */
function fields(html: string): Record<string, { label: string; value: string }> {
  const strip = (s: string) => s.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  return Object.fromEntries([...html.matchAll(/<dt>([\s\S]*?)<\/dt><dd data-field="([^"]+)"[^>]*>([\s\S]*?)<\/dd>/g)].map((m) => [m[2], { label: strip(m[1]), value: strip(m[3]) }]));
}

test('subscription, customer, collection and charge pages give every enumerated value and field words in es-CO and English (no raw API value left in front)', async () => {
  const keys = await t.account('Detalles en palabras');
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Detalle' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '30000', currency: 'COP' })).body;
  const c = (await api.post('/v1/customers', { email: 'detalle@example.com', name: 'Detalle', document_type: 'CC', document_number: '123' })).body;
  const s = (await api.post('/v1/subscriptions', { customer: c.id, items: [{ price: price.id }], collection_method: 'charge', payment_information: card() })).body;
  const col = (await api.get(`/v1/collections?customer=${c.id}`)).body.data[0];
  const ch = (await api.get(`/v1/charges?customer=${c.id}`)).body.data[0];
  const v = (await signInMember(t, keys.id, 'owner')).visitor;
  const page = async (path: string) => {
    const res = await v.get(path);
    expect(res.status).toBe(200);
    return fields(res.text);
  };

  const sub = await page(`/dashboard/subscriptions/${s.id}`);
  // The id is labelled once ("Id", not "Id id"); a label in words keeps the API's name beside it.
  expect(sub.id.label).toBe('Id');
  expect(sub.first_payment_invoicing).toEqual({ label: 'Facturación del primer pago first_payment_invoicing', value: 'Después del primer pago' });
  expect(sub.object.value).toBe('Suscripción');
  const cus = await page(`/dashboard/customers/${c.id}`);
  expect(cus.default_payment_method.label).toBe('Método de pago predeterminado default_payment_method');
  expect(cus.document_type.value).toBe('Cédula de ciudadanía (CC)');
  const colPage = await page(`/dashboard/collections/${col.id}`);
  expect(colPage.type.value).toBe('Factura');
  expect(colPage.billing_reason.value).toBe('Inicio de la suscripción');
  expect(colPage.payment_method_type.value).toBe('Tarjeta');
  expect(colPage.amount_applied.value).toBe('$ 0');
  expect(colPage.collection_attempts.label).toBe('Intentos de cobro collection_attempts');
  expect(colPage.collecting.label).toBe('Cobro en curso collecting');
  const charge = await page(`/dashboard/charges/${ch.id}`);
  expect(charge.payment_method_type.value).toBe('Tarjeta');
  expect(charge.object.value).toBe('Cargo');

  const en = await page(`/dashboard/subscriptions/${s.id}?locale=en`);
  expect(en.first_payment_invoicing.value).toBe('After the first payment');
  const enCol = await page(`/dashboard/collections/${col.id}?locale=en`);
  expect([enCol.type.value, enCol.billing_reason.value, enCol.payment_method_type.value, enCol.amount_credited.value]).toEqual(['Invoice', 'Subscription start', 'Card', 'COP 0']);
  expect(enCol.collecting.label).toBe('Being collected collecting');
  expect((await page(`/dashboard/customers/${c.id}?locale=en`)).document_type.value).toBe('Citizenship ID (CC)');
});

test('a detail page is headed in business terms and names the objects it links to; the ids stay beside them', async () => {
  const keys = await t.account('Detalles con nombres');
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Nombres' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '30000', currency: 'COP' })).body;
  const c = (await api.post('/v1/customers', { email: 'nombres@example.com', name: 'Ana Pérez' })).body;
  const s = (await api.post('/v1/subscriptions', { customer: c.id, items: [{ price: price.id }], collection_method: 'charge', payment_information: card() })).body;
  const col = (await api.get(`/v1/collections?customer=${c.id}`)).body.data[0];
  const v = (await signInMember(t, keys.id, 'owner')).visitor;
  const strip = (s: string) => s.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  const heading = (html: string) => ({ h1: strip(/<h1>([\s\S]*?)<\/h1>/.exec(html)![1]), id: strip(/<p class="muted" id="object-id">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? '') });

  const subHtml = (await v.get(`/dashboard/subscriptions/${s.id}`)).text;
  expect(heading(subHtml)).toEqual({ h1: 'Ana Pérez · Plan Nombres · $ 30.000 al mes', id: `Suscripción ${s.id}` });
  expect(subHtml).toMatch(new RegExp(`<title>Suscripción Ana Pérez · Plan Nombres`));
  const sub = fields(subHtml);
  expect(sub.customer.value).toBe(`Ana Pérez ${c.id}`);
  expect(subHtml).toContain(`<a href="/dashboard/customers/${c.id}">Ana Pérez</a>`);
  expect(sub.payment_method.value).toBe(`Visa •••• 4242 ${s.payment_method}`);
  expect(sub.latest_collection.value).toBe(`$ 30.000 · Pagado ${col.id}`);

  expect(heading((await v.get(`/dashboard/customers/${c.id}`)).text).h1).toBe('Ana Pérez');
  const colHtml = (await v.get(`/dashboard/collections/${col.id}`)).text;
  expect(heading(colHtml).h1).toMatch(/^Ana Pérez · .* · \$ 30\.000$/);
  expect(fields(colHtml).subscription.value).toBe(`Activa ${s.id}`);
  expect(heading((await v.get(`/dashboard/prices/${price.id}`)).text).h1).toBe('Plan Nombres · $ 30.000 al mes');
  expect(heading((await v.get(`/dashboard/products/${product.id}?locale=en`)).text)).toEqual({ h1: 'Plan Nombres', id: `Product ${product.id}` });
  // In English, the linked objects' words too.
  expect(fields((await v.get(`/dashboard/subscriptions/${s.id}?locale=en`)).text).latest_collection.value).toBe(`COP 30,000 · Paid ${col.id}`);
});
