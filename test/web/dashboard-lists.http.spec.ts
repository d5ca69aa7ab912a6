import { jest } from '@jest/globals';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { card } from '../support/billing-fixtures.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let keys: { id: string; test_key: string; live_key: string };
beforeAll(async () => {
  t = await startTestApp();
  keys = await t.account('Listas en palabras');
});
afterAll(() => t.close());

/** The cells of the row of `id` (its `<tr data-id>` … `</tr>`), tags stripped, by column. */
function row(html: string, id: string): Record<string, string> {
  const tr = new RegExp(`<tr data-id="${id}">([\\s\\S]*?)</tr>`).exec(html);
  if (!tr) throw new Error(`no row ${id}`);
  return Object.fromEntries([...tr[1].matchAll(/<td data-label="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [m[1], m[2].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()]));
}
/** The column headers of a list, in order. */
const headers = (html: string) => [...html.matchAll(/<th scope="col" data-column="([^"]+)">/g)].map((m) => m[1]);

test('subscriptions, customers, collections and charges read in business terms: names, plan and price in words, status in words; the id still a link', async () => {
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Pro' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900', currency: 'COP' })).body;
  const quarterly = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 3, unit_price: '129900', currency: 'COP' })).body;
  const oneTime = (await api.post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '15000', currency: 'COP' })).body;
  const email = `lucia.mejia.${Date.now()}@example.com`;
  const customer = (
    await api.post('/v1/customers', {
      email,
      name: 'Lucía Mejía',
      document_type: 'CC',
      document_number: '1020304050',
      billing_address: { address_1: 'Cl 10 # 5-51', city: 'Cali', state: 'Valle', country: 'CO' },
    })
  ).body;
  expect(customer.id).toMatch(/^cus_/);
  const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'charge', payment_information: card() })).body;
  expect(sub.status).toBe('active');
  const collect = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: quarterly.id, quantity: 2 }], collection_method: 'collect', days_until_due: 5 })).body;
  const col = (await api.post('/v1/collections', { customer: customer.id, items: [{ price: oneTime.id }], collection_method: 'collect', days_until_due: 5 })).body;
  expect(col.id).toMatch(/^col_/);
  const v = (await signInMember(t, keys.id, 'support')).visitor;

  const subs = await v.get('/dashboard/subscriptions');
  expect(subs.status).toBe(200);
  expect(headers(subs.text)).toEqual(['customer_name', 'plan', 'amount_per_period', 'status', 'next_renewal']);
  expect(row(subs.text, sub.id)).toEqual({
    Cliente: `Lucía Mejía ${email} ${sub.id}`,
    Plan: 'Plan Pro · $ 49.900 al mes',
    'Valor por periodo': '$ 49.900',
    Estado: 'Activa',
    'Próxima renovación': expect.stringMatching(/^\d{1,2} de [a-z]+\.? de \d{4}$/),
  });
  // Two units of a quarterly price: the plan says the price, the amount what a period costs.
  expect(row(subs.text, collect.id)).toMatchObject({ Plan: 'Plan Pro · $ 129.900 cada 3 meses', 'Valor por periodo': '$ 259.800' });
  // The id is still one click away: the row's first cell links to its page.
  expect(subs.text).toContain(`<a href="/dashboard/subscriptions/${sub.id}">Lucía Mejía</a>`);
  // The API's value stays beside the words, for filters and scripts.
  expect(subs.text).toContain('<span class="status status-active" data-value="active">Activa</span>');

  const en = await v.get('/dashboard/subscriptions?locale=en');
  expect(row(en.text, sub.id)).toMatchObject({ Customer: `Lucía Mejía ${email} ${sub.id}`, Plan: 'Plan Pro · COP 49,900 a month', Status: 'Active' });
  expect(row(en.text, collect.id).Plan).toBe('Plan Pro · COP 129,900 every 3 months');
  await v.get('/dashboard/subscriptions?locale=es');

  const customers = await v.get(`/dashboard/customers?email=${encodeURIComponent(email)}`);
  expect(headers(customers.text)).toEqual(['name', 'email', 'document', 'city', 'active_subscriptions', 'total_paid', 'created_date']);
  expect(row(customers.text, customer.id)).toMatchObject({ Nombre: `Lucía Mejía ${customer.id}`, 'Correo electrónico': email, Documento: 'CC 1020304050', Ciudad: 'Cali', 'Suscripciones activas': '2', 'Total pagado': '$ 49.900' });
  expect(customers.text).toContain(`<a href="/dashboard/customers/${customer.id}">Lucía Mejía</a>`);

  const collections = await v.get(`/dashboard/collections?customer=${customer.id}`);
  expect(headers(collections.text)).toEqual(['customer_name', 'concept', 'total', 'due_date', 'status', 'collection_method']);
  expect(row(collections.text, col.id)).toMatchObject({
    Cliente: `Lucía Mejía ${email} ${col.id}`,
    Concepto: 'Plan Pro',
    Total: '$ 15.000',
    Vence: expect.stringMatching(/^\d{1,2} de [a-z]+\.? de \d{4}$/),
    Estado: 'Pendiente',
    'Método de cobro': 'Enviar cobro al cliente',
  });
  expect(collections.text).toContain(`<a href="/dashboard/collections/${col.id}">Lucía Mejía</a>`);

  const charges = await v.get(`/dashboard/charges?customer=${customer.id}`);
  const chargeId = /<tr data-id="(ch_[^"]+)">/.exec(charges.text)![1];
  expect(row(charges.text, chargeId)).toMatchObject({ Cliente: `Lucía Mejía ${email} ${chargeId}`, Valor: '$ 49.900', 'Medio de pago': 'Visa •••• 4242', Estado: 'Aprobado' });
  expect((await v.get(`/dashboard/charges?customer=${customer.id}&locale=en`)).text).toContain('<span class="status status-succeeded" data-value="succeeded">Approved</span>');
});

test('a page of 20 rows reads its customers and products once for the page, not once per row', async () => {
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Lote' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '19900', currency: 'COP' })).body;
  for (let i = 0; i < 21; i++) {
    const c = (await api.post('/v1/customers', { email: `lote.${i}.${Date.now()}@example.com`, name: `Cliente Lote ${i}` })).body;
    await api.post('/v1/subscriptions', { customer: c.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5 });
  }
  const v = (await signInMember(t, keys.id, 'owner')).visitor;
  const store = t.app.get<ReadStore>(READ_STORE);
  const getMany = jest.spyOn(store, 'getMany');
  const get = jest.spyOn(store, 'get');
  try {
    const page = await v.get('/dashboard/subscriptions?limit=20');
    expect(page.status).toBe(200);
    expect([...page.text.matchAll(/<tr data-id="sub_/g)]).toHaveLength(20);
    // Every row named its customer (20 different ones)…
    for (let i = 1; i < 21; i++) expect(page.text).toContain(`>Cliente Lote ${i}</a>`);
    // …with one read of the page's customers and one of its products, and no read of either per row.
    const reads = (collection: string) => getMany.mock.calls.filter(([c]) => c === collection);
    expect(reads('customers')).toHaveLength(1);
    expect(reads('customers')[0][1]).toHaveLength(20);
    expect(reads('products')).toHaveLength(1);
    expect(get.mock.calls.filter(([c]) => c === 'customers' || c === 'products' || c === 'prices')).toEqual([]);
  } finally {
    getMany.mockRestore();
    get.mockRestore();
  }
});
