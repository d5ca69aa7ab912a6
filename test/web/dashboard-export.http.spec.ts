import { jest } from '@jest/globals';
import { QueryBus } from '@nestjs/cqrs';
import { ListCustomersQuery } from '#customers/application/list-customers.js';
import { ListSubscriptionsQuery } from '#subscriptions/application/list-subscriptions.js';
import { card } from '../support/billing-fixtures.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Visitor = Awaited<ReturnType<typeof signInMember>>['visitor'];

/** The export as the bytes sent (to see the BOM), with the response's headers. */
async function download(v: Visitor, path: string) {
  const cookie = [...v.jar].map(([k, val]) => `${k}=${val}`).join('; ');
  const res = await t
    .http()
    .get(path)
    .set('Cookie', cookie)
    .buffer(true)
    .parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
  return { res, bytes: res.body as Buffer, text: (res.body as Buffer).toString('utf8') };
}

/** RFC 4180 rows of `text` (without its BOM), cells unquoted. */
function parseCsv(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === sep) row.push(cell), (cell = '');
    else if (ch === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    else cell += ch;
  }
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  return rows;
}

const FORMULA = '=HYPERLINK("http://evil.example";"Haz clic")';

test('customers: every page of 250, streamed a list query at a time, with a BOM, accents, `;` in es-CO and `,` in English, formulas neutralised', async () => {
  const keys = await t.account('Exportaciones Gómez');
  const api = t.as(keys.test_key);
  const made: string[] = [];
  for (let i = 0; i < 250; i++) {
    const name = i === 7 ? FORMULA : `Ana Gómez ${i}`;
    const res = await api.post('/v1/customers', { email: `ana.gomez.${i}@example.com`, name, billing_address: { address_1: 'Cl 10 # 5-51', city: 'Bogotá', state: 'Bogotá D.C.', country: 'CO' } });
    expect(res.status).toBe(200);
    made.push(res.body.id);
  }
  const analyst = (await signInMember(t, keys.id, 'analyst')).visitor;

  const spy = jest.spyOn(t.app.get(QueryBus), 'execute');
  let queries: unknown[] = [];
  let es: Awaited<ReturnType<typeof download>>;
  try {
    es = await download(analyst, '/dashboard/customers/export.csv?locale=es');
  } finally {
    queries = spy.mock.calls.map(([q]) => q);
    spy.mockRestore();
  }
  const lists = queries.filter((q): q is ListCustomersQuery => q instanceof ListCustomersQuery);

  // The router sent it to the export (a static segment wins over the detail page's `:id`).
  expect(es.res.status).toBe(200);
  expect(es.res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(es.res.headers['content-disposition']).toMatch(/^attachment; filename="customers-\d{4}-\d{2}-\d{2}\.csv"$/);
  // Streamed: sent in chunks as the pages are read, never assembled first with a length.
  expect(es.res.headers['transfer-encoding']).toBe('chunked');
  expect(es.res.headers['content-length']).toBeUndefined();

  expect([...es.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  expect(es.text.startsWith('\uFEFF')).toBe(true);
  const rows = parseCsv(es.text.slice(1), ';');
  expect(rows[0]).toEqual(['Nombre', 'Correo electrónico', 'Documento', 'Ciudad', 'Suscripciones activas', 'Total pagado', 'Moneda', 'Pagado en otras monedas', 'Creado', 'Id']);
  const data = rows.slice(1);
  expect(data).toHaveLength(250);
  expect(new Set(data.map((r) => r[9]))).toEqual(new Set(made));
  expect(es.text).toContain('Ana Gómez 3;ana.gomez.3@example.com;;Bogotá;0;;;;');
  for (const r of data) expect(r[8]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
  // A name a spreadsheet would run as a formula is text, its quotes doubled (and quoted: it holds a `;`).
  const formula = data.find((r) => r[9] === made[7])!;
  expect(formula[0]).toBe(`'${FORMULA}`);
  expect(es.text).toContain(`"'=HYPERLINK(""http://evil.example"";""Haz clic"")"`);

  // Page after page of 100 rows: three list queries, each after the last row of the one before.
  expect(lists.map((q) => q.params.limit)).toEqual([100, 100, 100]);
  const ids = data.map((r) => r[9]);
  expect(lists.map((q) => q.params.starting_after)).toEqual([undefined, ids[99], ids[199]]);

  const en = await download(analyst, '/dashboard/customers/export.csv?locale=en');
  const enRows = parseCsv(en.text.slice(1), ',');
  expect(enRows[0]).toEqual(['Name', 'Email', 'Document', 'City', 'Active subscriptions', 'Total paid', 'Currency', 'Paid in other currencies', 'Created', 'Id']);
  expect(enRows).toHaveLength(251);
  expect(en.text).toContain('Ana Gómez 3,ana.gomez.3@example.com,,Bogotá,');

  // The list's filter narrows the file as it narrows the page.
  const one = await download(analyst, '/dashboard/customers/export.csv?locale=es&email=ana.gomez.42%40example.com');
  expect(parseCsv(one.text.slice(1), ';').slice(1).map((r) => r[0])).toEqual(['Ana Gómez 42']);

  // The detail page is still the detail page.
  const detail = await analyst.get(`/dashboard/customers/${made[0]}`);
  expect(detail.status).toBe(200);
  expect(detail.headers['content-type']).toMatch(/^text\/html/);
}, 120_000);

test('subscriptions: a status filter narrows the rows; amounts and dates as a spreadsheet reads them; the list links to the export with its filters; a viewer gets 403', async () => {
  const keys = await t.account('Suscripciones exportadas');
  const api = t.as(keys.test_key);
  const product = (await api.post('/v1/products', { name: 'Plan Pro' })).body;
  const price = (await api.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '49900', currency: 'COP' })).body;
  const subs: { id: string; email: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const email = `lucia.mejia.${i}@example.com`;
    const customer = (await api.post('/v1/customers', { email, name: `Lucía Mejía ${i}` })).body;
    const sub = (await api.post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'charge', payment_information: card() })).body;
    expect(sub.status).toBe('active');
    subs.push({ id: sub.id, email });
  }
  expect((await api.post(`/v1/subscriptions/${subs[2].id}/cancel`, { cancel_at: 'now' })).body.status).toBe('canceled');
  const owner = (await signInMember(t, keys.id, 'owner')).visitor;

  const spy = jest.spyOn(t.app.get(QueryBus), 'execute');
  let queries: unknown[] = [];
  let active: Awaited<ReturnType<typeof download>>;
  try {
    active = await download(owner, '/dashboard/subscriptions/export.csv?locale=es&status=active');
  } finally {
    queries = spy.mock.calls.map(([q]) => q);
    spy.mockRestore();
  }
  expect(active.res.status).toBe(200);
  expect(active.res.headers['content-disposition']).toMatch(/^attachment; filename="subscriptions-\d{4}-\d{2}-\d{2}\.csv"$/);
  expect(queries.filter((q) => q instanceof ListSubscriptionsQuery).map((q) => (q as ListSubscriptionsQuery).params)).toEqual([expect.objectContaining({ status: 'active', limit: 100 })]);
  const rows = parseCsv(active.text.slice(1), ';');
  expect(rows[0]).toEqual(['Cliente', 'Correo electrónico', 'Plan', 'Valor por periodo', 'Moneda', 'Estado', 'Próxima renovación', 'Id']);
  expect(rows.slice(1).map((r) => r[7]).sort()).toEqual([subs[0].id, subs[1].id].sort());
  const first = rows.find((r) => r[7] === subs[0].id)!;
  expect(first).toEqual(['Lucía Mejía 0', subs[0].email, 'Plan Pro · $ 49.900 al mes', '49900,00', 'COP', 'Activa', expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/), subs[0].id]);

  const all = await download(owner, '/dashboard/subscriptions/export.csv?locale=en');
  const enRows = parseCsv(all.text.slice(1), ',');
  expect(enRows).toHaveLength(4);
  expect(enRows[0]).toEqual(['Customer', 'E-mail', 'Plan', 'Amount per period', 'Currency', 'Status', 'Next renewal', 'Id']);
  expect(enRows.find((r) => r[7] === subs[0].id)!.slice(3, 6)).toEqual(['49900.00', 'COP', 'Active']);
  expect(enRows.find((r) => r[7] === subs[2].id)![5]).toBe('Canceled');

  // A filter the API refuses is the 400 page, before any file.
  const refused = await download(owner, '/dashboard/subscriptions/export.csv?locale=es&status=nope');
  expect(refused.res.status).toBe(400);
  expect(refused.res.headers['content-type']).toMatch(/^text\/html/);
  expect((await download(owner, '/dashboard/nothing/export.csv')).res.status).toBe(404);

  // The list offers the export with the list's filters; a viewer sees no link and gets the 403 page.
  const page = await owner.get('/dashboard/subscriptions?locale=es&status=active');
  expect(page.text).toContain('href="/dashboard/subscriptions/export.csv?status=active" download data-action="export">Exportar CSV</a>');
  const viewer = (await signInMember(t, keys.id, 'viewer')).visitor;
  const viewerPage = await viewer.get('/dashboard/subscriptions?status=active');
  expect(viewerPage.status).toBe(200);
  expect(viewerPage.text).not.toContain('export.csv');
  const forbidden = await download(viewer, '/dashboard/subscriptions/export.csv?status=active');
  expect(forbidden.res.status).toBe(403);
  expect(forbidden.res.headers['content-type']).toMatch(/^text\/html/);
  expect(forbidden.text).not.toContain(subs[0].id);
}, 60_000);
