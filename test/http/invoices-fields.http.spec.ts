import { invoicingApp } from '../support/invoicing-app.js';
import { clockAndCustomer } from '../support/lifecycle.js';

/**
 * Each figure of an invoice and of a registered payment's receipt says what happened: a void invoice
 * owes nothing; a credit note lowers what is due but is no payment (an unpaid invoice stays open, its
 * total_paid 0); a receipt's amount_applied is the sum it applied and its invoices the invoices it paid
 * into. update/total weighs the invoice's balance with its credit notes taken off, as its OpenAPI
 * description says.
 */
const app = invoicingApp();
const api = app.api;
const NOW = '2026-03-10T12:00:00.000Z';
const upload = (customer: string, number: string, dueInDays: number, total: string) => app.upload(NOW, customer, number, dueInDays, total);
const getInvoice = async (id: string) => (await api().get(`/v1/invoices/${id}`)).body;
const getCollection = async (id: string) => (await api().get(`/v1/collections/${id}`)).body;

test('a void invoice owes nothing: amount_due 0.00 on the invoice, in the list and in its invoice.voided event, as its collection asks 0', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const inv = await upload(customer.id, 'FE-V1', 10, '100000.00');
  const voided = await api().post(`/v1/invoices/${inv.id}/void`, {});
  expect(voided.status).toBe(200);
  expect(voided.body).toMatchObject({ status: 'void', total: '100000.00', total_paid: '0.00', amount_credited: '0.00', amount_due: '0.00' });
  expect(await getInvoice(inv.id)).toMatchObject({ status: 'void', amount_due: '0.00' });
  expect((await api().get(`/v1/invoices?customer=${customer.id}`)).body.data).toEqual([expect.objectContaining({ id: inv.id, status: 'void', amount_due: '0.00' })]);
  expect(await getCollection(inv.collection)).toMatchObject({ status: 'voided', amount_due: '0.00' });
  const events = (await api().get(`/v1/events?object_id=${inv.id}&type=invoice.voided`)).body.data as Array<{ data: { object: Record<string, unknown> } }>;
  expect(events.map((e) => e.data.object)).toEqual([expect.objectContaining({ status: 'void', amount_due: '0.00' })]);
});

test('a credit note on an unpaid invoice lowers what is due but is no payment: the invoice stays open with total_paid 0.00; one to zero settles it', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const inv = await upload(customer.id, 'FE-C1', 10, '100000.00');
  const cn = await api().post(`/v1/invoices/${inv.id}/credit_notes`, { amount: '30000', reason: 'Descuento comercial' });
  expect(cn.status).toBe(200);
  expect(await getInvoice(inv.id)).toMatchObject({ status: 'open', total_paid: '0.00', amount_credited: '30000.00', amount_due: '70000.00' });
  // Money paid next: partly paid.
  expect((await api().post(`/v1/invoices/${inv.id}/pay`, { amount: '20000' })).status).toBe(200);
  expect(await getInvoice(inv.id)).toMatchObject({ status: 'partially_paid', total_paid: '20000.00', amount_credited: '30000.00', amount_due: '50000.00' });
  // An unpaid invoice credited in full: settled, nothing paid.
  const other = await upload(customer.id, 'FE-C2', 10, '50000.00');
  expect((await api().post(`/v1/invoices/${other.id}/credit_notes`, { amount: '50000', reason: 'Anulación comercial' })).status).toBe(200);
  expect(await getInvoice(other.id)).toMatchObject({ status: 'paid', total_paid: '0.00', amount_credited: '50000.00', amount_due: '0.00' });
});

test("register_invoices_payment's receipt says what it did: amount_applied the sum of applied_to, invoices the invoices it paid into; an invoice pay's receipt too", async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const first = await upload(customer.id, 'FE-R1', 5, '100000.00');
  const second = await upload(customer.id, 'FE-R2', 10, '70000.00');
  const receipt = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '170000' });
  expect(receipt.status).toBe(200);
  expect(receipt.body).toMatchObject({
    status: 'paid',
    total: '170000.00',
    amount_applied: '170000.00',
    applied_to: [
      { collection: first.collection, amount: '100000.00' },
      { collection: second.collection, amount: '70000.00' },
    ],
    invoices: [first.id, second.id],
    invoice: null,
  });
  expect(await getCollection(receipt.body.id)).toMatchObject({ amount_applied: '170000.00', invoices: [first.id, second.id] });
  for (const inv of [first, second]) expect(await getInvoice(inv.id)).toMatchObject({ status: 'paid', amount_due: '0.00' });

  // POST /v1/invoices/{id}/pay records the money on a receipt of its own: the same fields.
  const third = await upload(customer.id, 'FE-R3', 10, '30000.00');
  expect((await api().post(`/v1/invoices/${third.id}/pay`, { amount: '10000' })).status).toBe(200);
  const [payment] = (await api().get(`/v1/invoices/${third.id}/payments`)).body.data;
  expect(await getCollection(payment.receipt)).toMatchObject({ total: '10000.00', amount_applied: '10000.00', applied_to: [{ collection: third.collection, amount: '10000.00' }], invoices: [third.id] });
});

test('update/total weighs the invoice balance with its credit notes taken off (total − total_paid − credited), as its OpenAPI description says', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const inv = await upload(customer.id, 'FE-U1', 10, '100000.00');
  expect((await api().post(`/v1/invoices/${inv.id}/credit_notes`, { amount: '30000', reason: 'Descuento' })).status).toBe(200);
  const part = await api().post(`/v1/collections/${inv.collection}/partial_payment`, { amount: '10000', create_collection_with_balance: true, days_until_due: 10 });
  expect(part.status).toBe(200);
  const balance = part.body.partial_payment.balance_collection;
  expect((await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '10000' })).status).toBe(200);
  // The spec's formula alone (total − total_paid = 90000) would allow 80000; 30000 of it was credited: 60000 at most.
  const refused = await api().post(`/v1/collections/${balance}/update/total`, { total: '60000.01' });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ code: 'collection_total_not_updatable', param: 'total' });
  expect(refused.body.error.message).toContain(`is more than the balance of invoice ${inv.id}: 60000.00 (invoice total 100000.00 less 10000.00 paid and 30000.00 credited)`);
  expect((await api().post(`/v1/collections/${balance}/update/total`, { total: '60000' })).body).toMatchObject({ total: '60000.00' });

  const doc = (await app.t.http().get('/openapi.json')).body;
  const op = doc.paths['/v1/collections/{id}/update/total'].post;
  expect(op.description).toContain('invoice.total − invoice.total_paid − invoice.amount_credited');
  expect(op.description).toContain('credit notes');
});
