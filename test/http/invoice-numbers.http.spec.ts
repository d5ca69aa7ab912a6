import { card } from '../support/billing-fixtures.js';
import { invoicingApp } from '../support/invoicing-app.js';

/**
 * A fiscal number is an account's once per mode (and numbering range: the prefix is part of the
 * number): an upload of a number in use is 409 naming the invoice that has it, and nothing is
 * written; two uploads racing with one number end with one invoice; the range passes over a
 * number an upload already took.
 */
const app = invoicingApp();
const api = app.api;

let n = 0;
const customer = async () => (await api().post('/v1/customers', { email: `numbers.${++n}.${Date.now()}@example.com`, name: 'Cliente' })).body as { id: string };
const upload = (customerId: string, number: string) =>
  api().post('/v1/invoices', { customer: customerId, number, issue_date: '2026-11-01', due_date: '2026-12-31', subtotal: '100000', tax_total: '19000', total: '119000' });

test('the same number uploaded again (any case, spaces around) is 409 invoice_number_taken naming the invoice that has it; nothing is written', async () => {
  const a = await customer();
  const b = await customer();
  const first = await upload(a.id, 'FEV1001');
  expect(first.status).toBe(200);
  const eventsBefore = (await api().get('/v1/events?limit=100&type=invoice.created')).body.data.length;
  const collectionsBefore = (await api().get('/v1/collections?limit=100')).body.data.length;
  for (const again of ['FEV1001', ' fev1001 ']) {
    const res = await upload(b.id, again);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'invoice_number_taken',
        message: `Invoice number ${again.trim()} is already used by ${first.body.id} in this account`,
        param: 'number',
      },
    });
  }
  expect((await api().get(`/v1/invoices?customer=${b.id}`)).body.data).toEqual([]);
  expect((await api().get('/v1/events?limit=100&type=invoice.created')).body.data).toHaveLength(eventsBefore);
  expect((await api().get('/v1/collections?limit=100')).body.data).toHaveLength(collectionsBefore);
  // Another number is fine; so is the same number in another account.
  expect((await upload(b.id, 'FEV1002')).status).toBe(200);
  const other = await app.t.account();
  const otherCustomer = (await app.t.as(other.test_key).post('/v1/customers', { email: `numbers.other.${Date.now()}@example.com` })).body;
  const elsewhere = await app.t
    .as(other.test_key)
    .post('/v1/invoices', { customer: otherCustomer.id, number: 'FEV1001', issue_date: '2026-11-01', due_date: '2026-12-31', subtotal: '1000', tax_total: '0', total: '1000' });
  expect(elsewhere.status).toBe(200);
});

test('a refused upload leaves its number free', async () => {
  const a = await customer();
  const refused = await api().post('/v1/invoices', { customer: a.id, number: 'FEV2001', issue_date: '2026-11-01', due_date: '2026-12-31', subtotal: '100', tax_total: '0', total: '999' });
  expect(refused.status).toBe(400);
  expect(refused.body.error.param).toBe('total');
  expect((await upload(a.id, 'FEV2001')).status).toBe(200);
});

test('two uploads racing with one number: exactly one invoice, the other 409 naming it', async () => {
  const a = await customer();
  const b = await customer();
  const results = await Promise.all([upload(a.id, 'FEV3001'), upload(b.id, 'FEV3001'), upload(a.id, 'FEV3001')]);
  const ok = results.filter((r) => r.status === 200);
  const taken = results.filter((r) => r.status === 409);
  expect(ok).toHaveLength(1);
  expect(taken).toHaveLength(2);
  for (const r of taken) expect(r.body.error).toMatchObject({ code: 'invoice_number_taken', param: 'number', message: expect.stringContaining(ok[0].body.id) });
  const invoices = [...(await api().get(`/v1/invoices?customer=${a.id}`)).body.data, ...(await api().get(`/v1/invoices?customer=${b.id}`)).body.data];
  expect(invoices.map((i: any) => i.id)).toEqual([ok[0].body.id]);
});

test('an invoice numbered from the range passes over a number an upload already has', async () => {
  const acct = await app.t.account();
  const client = app.t.as(acct.test_key);
  expect((await client.post('/v1/account/invoicing_settings', { enabled: true, numbering: { prefix: 'FE', next_number: 500 } })).status).toBe(200);
  const buyer = (await client.post('/v1/customers', { email: `numbers.range.${Date.now()}@example.com` })).body;
  const uploaded = await client.post('/v1/invoices', { customer: buyer.id, number: 'FE500', issue_date: '2026-11-01', due_date: '2026-12-31', subtotal: '1000', tax_total: '0', total: '1000' });
  expect(uploaded.status).toBe(200);
  const product = (await client.post('/v1/products', { name: 'P' })).body;
  const price = (await client.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '50000' })).body;
  expect((await client.post('/v1/subscriptions', { customer: buyer.id, items: [{ price: price.id }], payment_information: card() })).body.status).toBe('active');
  const numbers = ((await client.get(`/v1/invoices?customer=${buyer.id}`)).body.data as any[]).map((i) => i.number).sort();
  expect(numbers).toEqual(['FE500', 'FE501']);
  expect((await client.get('/v1/account/invoicing_settings')).body.numbering.next_number).toBe(502);
  // A range set back: the numbers already used are passed over again, never issued twice.
  expect((await client.post('/v1/account/invoicing_settings', { numbering: { next_number: 500 } })).status).toBe(200);
  expect((await client.post('/v1/subscriptions', { customer: buyer.id, items: [{ price: price.id }], payment_information: card() })).body.status).toBe('active');
  const after = ((await client.get(`/v1/invoices?customer=${buyer.id}`)).body.data as any[]).map((i) => i.number).sort();
  expect(after).toEqual(['FE500', 'FE501', 'FE502']);
});
