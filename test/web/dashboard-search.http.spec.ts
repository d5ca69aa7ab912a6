import { card } from '../support/billing-fixtures.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Visitor = Awaited<ReturnType<typeof signInMember>>['visitor'];

/** The ids of a list page's rows, in order. */
const rowIds = (html: string) => [...html.matchAll(/<tr data-id="([^"]+)">/g)].map((m) => m[1]);
/** The cells of the row of `id`, tags stripped, by column label. */
function row(html: string, id: string): Record<string, string> {
  const tr = new RegExp(`<tr data-id="${id}">([\\s\\S]*?)</tr>`).exec(html);
  if (!tr) throw new Error(`no row ${id}`);
  return Object.fromEntries([...tr[1].matchAll(/<td data-label="([^"]*)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [m[1], m[2].replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim()]));
}
const unescape = (s: string) => s.replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"');
const ids = async (v: Visitor, path: string) => {
  const res = await v.get(path);
  expect(res.status).toBe(200);
  return rowIds(res.text).sort();
};
const sorted = (...xs: string[]) => [...xs].sort();

test('customers, subscriptions and collections are found by e-mail, name without its accents, document number or id prefix; paging and the export keep the search', async () => {
  const keys = await t.account('Búsquedas');
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Búsqueda' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '30000', currency: 'COP' })).body;
  const mk = async (email: string, name: string, document_number: string | null) =>
    (await api.post('/v1/customers', { email, name, ...(document_number ? { document_type: 'CC', document_number } : {}) })).body as { id: string };
  const jose = await mk('jose.perez@correo.co', 'José Pérez Gómez', '1.020.304.050');
  const maria = await mk('maria@empresa.co', 'María Josefa Ruiz', '79888777');
  const pedro = await mk('pedro@empresa.co', 'Pedro Páramo', null);
  const subJose = (await api.post('/v1/subscriptions', { customer: jose.id, items: [{ price: price.id }], collection_method: 'charge', payment_information: card() })).body;
  const subMaria = (await api.post('/v1/subscriptions', { customer: maria.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5 })).body;
  const subPedro = (await api.post('/v1/subscriptions', { customer: pedro.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5 })).body;
  const colsOf = async (customer: string) => ((await api.get(`/v1/collections?customer=${customer}`)).body.data as { id: string }[]).map((c) => c.id);
  const [colsJose, colsMaria] = [await colsOf(jose.id), await colsOf(maria.id)];
  expect(colsJose.length).toBeGreaterThan(0);
  expect(colsMaria.length).toBeGreaterThan(0);
  const v = (await signInMember(t, keys.id, 'owner')).visitor;
  const q = (s: string) => encodeURIComponent(s);

  // Customers: by e-mail (whole, its start, its local part), by a name typed without accents or in capitals, by the document's digits.
  expect(await ids(v, `/dashboard/customers?q=${q('jose.perez@correo.co')}`)).toEqual([jose.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('pedro@emp')}`)).toEqual([pedro.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('jose')}`)).toEqual(sorted(jose.id, maria.id)); // José, and María Josefa
  expect(await ids(v, `/dashboard/customers?q=${q('perez')}`)).toEqual([jose.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('JOSE GOM')}`)).toEqual([jose.id]); // every word must match
  expect(await ids(v, `/dashboard/customers?q=${q('paramo')}`)).toEqual([pedro.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('1020304')}`)).toEqual([jose.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('1.020.304.050')}`)).toEqual([jose.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('79888')}`)).toEqual([maria.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('ruiz pedro')}`)).toEqual([]);
  expect(await ids(v, `/dashboard/customers?q=${q(jose.id.slice(0, jose.id.length - 2))}`)).toContain(jose.id);
  expect(await ids(v, `/dashboard/customers?q=${q(jose.id)}`)).toEqual([jose.id]);
  expect(await ids(v, `/dashboard/customers?q=${q('empresa.co')}`)).toEqual([]); // a term is found by its start only
  // The search and the filters together: the e-mail filter narrows the search's answer.
  expect(await ids(v, `/dashboard/customers?q=${q('jose')}&email=${q('maria@empresa.co')}`)).toEqual([maria.id]);
  // The box shows what was searched, labelled, in both languages.
  const page = await v.get(`/dashboard/customers?q=${q('pérez')}`);
  expect(page.text).toMatch(/<label for="flt-q">Buscar<\/label>\s*<input type="search" id="flt-q" name="q" value="pérez"/);
  expect((await v.get(`/dashboard/customers?q=perez&locale=en`)).text).toContain('<label for="flt-q">Search</label>');
  await v.get('/dashboard/customers?locale=es');

  // Subscriptions: by their customer (e-mail, name, document) or by their own id's prefix.
  expect(await ids(v, `/dashboard/subscriptions?q=${q('perez')}`)).toEqual([subJose.id]);
  expect(await ids(v, `/dashboard/subscriptions?q=${q('@empresa.co')}`)).toEqual([]);
  expect(await ids(v, `/dashboard/subscriptions?q=${q('empresa')}`)).toEqual([]);
  expect(await ids(v, `/dashboard/subscriptions?q=${q('maria@')}`)).toEqual([subMaria.id]);
  expect(await ids(v, `/dashboard/subscriptions?q=${q('79888777')}`)).toEqual([subMaria.id]);
  expect(await ids(v, `/dashboard/subscriptions?q=${q(subPedro.id.slice(0, -3))}`)).toContain(subPedro.id);
  expect(await ids(v, `/dashboard/subscriptions?q=${q(subPedro.id)}`)).toEqual([subPedro.id]);
  expect(await ids(v, `/dashboard/subscriptions?q=${q(pedro.id)}`)).toEqual([subPedro.id]); // a customer's id
  expect(await ids(v, `/dashboard/subscriptions?q=${q('jose')}&status=past_due`)).toEqual([]); // with the status filter
  expect(await ids(v, `/dashboard/subscriptions?q=${q('jose')}&status=active`)).toEqual(sorted(subJose.id, subMaria.id));

  // Collections: likewise.
  expect(await ids(v, `/dashboard/collections?q=${q('jose.perez')}`)).toEqual(sorted(...colsJose));
  expect(await ids(v, `/dashboard/collections?q=${q('Maria Ruiz')}`)).toEqual(sorted(...colsMaria));
  expect(await ids(v, `/dashboard/collections?q=${q(colsMaria[0])}`)).toEqual([colsMaria[0]]);
  expect(await ids(v, `/dashboard/collections?q=${q(subJose.id)}`)).toEqual([]); // a subscription's id is not a collection's

  // Paging keeps the search: one row a page, the next link carries q.
  const first = await v.get(`/dashboard/customers?q=${q('jose')}&limit=1`);
  expect(rowIds(first.text)).toHaveLength(1);
  const next = /<a href="([^"]+)" rel="next">/.exec(first.text);
  expect(next).not.toBeNull();
  const nextUrl = unescape(next![1]);
  expect(new URL(nextUrl, 'http://x').searchParams.get('q')).toBe('jose');
  const second = await v.get(nextUrl);
  expect(sorted(...rowIds(first.text), ...rowIds(second.text))).toEqual(sorted(jose.id, maria.id));
  expect(second.text).not.toContain('rel="next"');

  // The export link carries the search, and the file holds only what the search finds.
  expect(first.text).toContain('href="/dashboard/customers/export.csv?q=jose"');
  const file = await v.get(`/dashboard/customers/export.csv?q=${q('perez')}`);
  expect(file.status).toBe(200);
  const lines = file.text.replace(/^\uFEFF/, '').trim().split('\r\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain('jose.perez@correo.co');
  const subsFile = await v.get(`/dashboard/subscriptions/export.csv?q=${q('maria')}`);
  const subLines = subsFile.text.replace(/^\uFEFF/, '').trim().split('\r\n');
  expect(subLines).toHaveLength(2);
  expect(subLines[1]).toContain(subMaria.id);
});

test("a customer's new name and e-mail are found, the old ones no longer", async () => {
  const keys = await t.account('Búsquedas cambios');
  const api = t.as(keys.test_key);
  const c = (await api.post('/v1/customers', { email: 'old@x.co', name: 'Antiguo Nombre' })).body;
  const v = (await signInMember(t, keys.id, 'support')).visitor;
  expect(await ids(v, '/dashboard/customers?q=antiguo')).toEqual([c.id]);
  expect((await api.post(`/v1/customers/${c.id}/update`, { email: 'nuevo@x.co', name: 'Ñandú Nuevo' })).status).toBe(200);
  expect(await ids(v, '/dashboard/customers?q=antiguo')).toEqual([]);
  expect(await ids(v, '/dashboard/customers?q=old')).toEqual([]);
  expect(await ids(v, '/dashboard/customers?q=nandu')).toEqual([c.id]);
  expect(await ids(v, '/dashboard/customers?q=nuevo%40x')).toEqual([c.id]);
  // Another account's customers are never found.
  const other = await t.account('Búsquedas otra');
  const w = (await signInMember(t, other.id, 'owner')).visitor;
  expect(await ids(w, '/dashboard/customers?q=nandu')).toEqual([]);
});
