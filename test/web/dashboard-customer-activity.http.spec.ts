import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { card } from '../support/billing-fixtures.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** The cells of the row of `id`, tags stripped, by column label. */
function row(html: string, id: string): Record<string, string> {
  const tr = new RegExp(`<tr data-id="${id}">([\\s\\S]*?)</tr>`).exec(html);
  if (!tr) throw new Error(`no row ${id}`);
  return Object.fromEntries([...tr[1].matchAll(/<td data-label="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [m[1], m[2].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()]));
}

test('the customers list shows each customer’s active subscriptions and total paid, kept by events: a canceled subscription stops counting, what it paid stays', async () => {
  const keys = await t.account('Actividad de clientes');
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Actividad' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '30000', currency: 'COP' })).body;
  const yearly = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'year', billing_interval: 1, unit_price: '250000', currency: 'COP' })).body;
  const ana = (await api.post('/v1/customers', { email: 'ana.actividad@example.com', name: 'Ana Actividad' })).body;
  const luis = (await api.post('/v1/customers', { email: 'luis.actividad@example.com', name: 'Luis Actividad' })).body;
  const idle = (await api.post('/v1/customers', { email: 'sin.nada@example.com', name: 'Sin Nada' })).body;

  const kept = (await api.post('/v1/subscriptions', { customer: ana.id, items: [{ price: price.id }], collection_method: 'charge', payment_information: card() })).body;
  const canceled = (await api.post('/v1/subscriptions', { customer: ana.id, items: [{ price: yearly.id }], collection_method: 'charge', payment_information: card() })).body;
  expect([kept.status, canceled.status]).toEqual(['active', 'active']);
  // A subscription whose first collection is still pending is active; nothing paid yet.
  const pending = (await api.post('/v1/subscriptions', { customer: luis.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5 })).body;
  expect(pending.status).toBe('active');

  const v = (await signInMember(t, keys.id, 'support')).visitor;
  let page = await v.get('/dashboard/customers');
  expect(page.status).toBe(200);
  expect(row(page.text, ana.id)).toMatchObject({ 'Suscripciones activas': '2', 'Total pagado': '$ 280.000' });
  expect(row(page.text, luis.id)).toMatchObject({ 'Suscripciones activas': '1', 'Total pagado': '' });
  expect(row(page.text, idle.id)).toMatchObject({ 'Suscripciones activas': '0', 'Total pagado': '' });

  expect((await api.post(`/v1/subscriptions/${canceled.id}/cancel`, { cancel_at: 'now' })).body.status).toBe('canceled');
  page = await v.get('/dashboard/customers');
  expect(row(page.text, ana.id)).toMatchObject({ 'Suscripciones activas': '1', 'Total pagado': '$ 280.000' });
  const en = await v.get('/dashboard/customers?locale=en');
  expect(row(en.text, ana.id)).toMatchObject({ 'Active subscriptions': '1', 'Total paid': 'COP 280,000' });
  await v.get('/dashboard/customers?locale=es');

  // What the page shows is the projection's document, not a scan of the subscriptions at request time.
  const store = t.app.get<ReadStore>(READ_STORE);
  expect(await store.get('customer_totals', ana.id)).toMatchObject({ active_subscriptions: 1, total_paid: { COP: '280000' } });
  expect(await store.get('customer_totals', `sub:${kept.id}`)).toMatchObject({ status: 'active' });
  expect(await store.get('customer_totals', `sub:${canceled.id}`)).toMatchObject({ status: 'canceled' });

  // The export has both, the amount as a spreadsheet reads it (an owner may export; support may not).
  const owner = (await signInMember(t, keys.id, 'owner')).visitor;
  const file = await owner.get('/dashboard/customers/export.csv?q=ana.actividad');
  const [header, line] = file.text.replace(/^\uFEFF/, '').trim().split('\r\n').map((l) => l.split(';'));
  expect(header.slice(4, 7)).toEqual(['Suscripciones activas', 'Total pagado', 'Moneda']);
  expect(line.slice(4, 7)).toEqual(['1', '280000,00', 'COP']);

  // A rebuild gives the same counters (they follow from the items' documents, event by event).
  const before = await store.find<{ id: string }>('customer_totals', { orderBy: { field: 'id', direction: 'asc' }, limit: 1000 });
  await t.app.get(ProjectionEngine).rebuild('customer_totals');
  const after = await store.find<{ id: string }>('customer_totals', { orderBy: { field: 'id', direction: 'asc' }, limit: 1000 });
  const byId = (docs: { id: string }[]) => Object.fromEntries(docs.map(({ _position: _p, ...d }: any) => [d.id, d]));
  expect(byId(after)).toEqual(byId(before));
  expect(byId(after)[ana.id]).toMatchObject({ active_subscriptions: 1, total_paid: { COP: '280000' } });
});
