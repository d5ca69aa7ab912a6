import { invoicingApp } from '../support/invoicing-app.js';
import { clockAndCustomer } from '../support/lifecycle.js';

/**
 * Issue 13, §3: uploaded invoices paid by one registered payment (overdue oldest first, then the
 * nearest due date, the last partly), a payment larger than everything owed, and pay-by-invoice;
 * the event feed of an invoice tells how it reached its balance.
 */
const app = invoicingApp({ invoicing: false });
const api = app.api;
const NOW = '2026-03-10T12:00:00.000Z';
const upload = (customer: string, number: string, dueInDays: number, total: string) => app.upload(NOW, customer, number, dueInDays, total);

test('three uploaded invoices (overdue 30 days, overdue 5 days, due next week): one registered payment pays the first two and part of the third', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const old = await upload(customer.id, 'FE-1', -30, '100000.00');
  const recent = await upload(customer.id, 'FE-2', -5, '50000.00');
  const next = await upload(customer.id, 'FE-3', 7, '80000.00');
  expect(old).toMatchObject({ object: 'invoice', source: 'upload', number: 'FE-1', status: 'open', total: '100000.00', amount_due: '100000.00', overdue: true, issuance: { status: 'external' } });
  expect(next.overdue).toBe(false);
  expect((await api().get(`/v1/collections/${old.collection}`)).body).toMatchObject({ invoice: old.id, invoice_number: 'FE-1', total: '100000.00', collection_method: 'collect', items: null });

  const tooMuch = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '230000.01' });
  expect(tooMuch.status).toBe(400);
  expect(tooMuch.body.error).toMatchObject({ code: 'amount_exceeds_balance', param: 'amount' });
  expect((await api().get(`/v1/invoices/${old.id}`)).body.total_paid).toBe('0.00');

  const receipt = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '170000' });
  expect(receipt.status).toBe(200);
  expect(receipt.body).toMatchObject({ object: 'collection', status: 'paid', total: '170000.00' });
  expect(receipt.body.applied_to).toEqual([
    { collection: old.collection, amount: '100000.00' },
    { collection: recent.collection, amount: '50000.00' },
    { collection: next.collection, amount: '20000.00' },
  ]);
  const get = async (id: string) => (await api().get(`/v1/invoices/${id}`)).body;
  expect(await get(old.id)).toMatchObject({ status: 'paid', total_paid: '100000.00', amount_due: '0.00', overdue: false });
  expect(await get(recent.id)).toMatchObject({ status: 'paid', total_paid: '50000.00', amount_due: '0.00' });
  expect(await get(next.id)).toMatchObject({ status: 'partially_paid', total_paid: '20000.00', amount_due: '60000.00' });
  expect((await api().get(`/v1/invoices/${next.id}/payments`)).body.data).toEqual([
    expect.objectContaining({ amount: '20000.00', collection: next.collection, receipt: receipt.body.id, payment_method_type: 'registered_payment' }),
  ]);
  const list = (await api().get(`/v1/invoices?customer=${customer.id}`)).body.data.map((i: { number: string }) => i.number);
  expect(list).toEqual(['FE-1', 'FE-2', 'FE-3']);

  // The rest, through the invoice itself; then nothing is due.
  const paid = await api().post(`/v1/invoices/${next.id}/pay`, {});
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'paid', total_paid: '80000.00', amount_due: '0.00' });
  expect((await api().post(`/v1/invoices/${next.id}/pay`, {})).status).toBe(409);

  // The auditor's view: the invoice's own steps, and the customer's.
  const steps = (await api().get(`/v1/events?object_id=${next.id}&limit=100`)).body.data.map((e: { type: string; data: { object: { amount_due: string } } }) => [e.type, e.data.object.amount_due]);
  expect(steps).toEqual([
    ['invoice.created', '80000.00'],
    ['invoice.payment_recorded', '60000.00'],
    ['invoice.payment_recorded', '0.00'],
    ['invoice.paid', '0.00'],
  ]);
  const byCustomer = (await api().get(`/v1/events?customer=${customer.id}&type=invoice.*&limit=100`)).body.data.map((e: { type: string; data: { object: { id: string } } }) => [e.type, e.data.object.id]);
  expect(byCustomer.filter(([, id]: string[]) => id === next.id)).toEqual(steps.map(([type]: string[]) => [type, next.id]));
  expect(byCustomer.filter(([type]: string[]) => type === 'invoice.paid').map(([, id]: string[]) => id).sort()).toEqual([old.id, recent.id, next.id].sort());
});

test('pay part of an invoice; more than due is refused; a paid invoice is not voided; an unpaid one is', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const inv = await upload(customer.id, 'FE-9', 10, '30000.00');
  expect((await api().post(`/v1/invoices/${inv.id}/pay`, { amount: '30000.01' })).body.error).toMatchObject({ code: 'amount_exceeds_balance' });
  const part = await api().post(`/v1/invoices/${inv.id}/pay`, { amount: '10000' });
  expect(part.body).toMatchObject({ status: 'partially_paid', total_paid: '10000.00', amount_due: '20000.00' });
  expect((await api().get(`/v1/collections/${inv.collection}`)).body).toMatchObject({ status: 'pending', total: '20000.00', amount_applied: '10000.00' });
  expect((await api().post(`/v1/invoices/${inv.id}/void`, {})).status).toBe(409);
  const other = await upload(customer.id, 'FE-10', 10, '5000.00');
  expect((await api().post(`/v1/invoices/${other.id}/void`, {})).body).toMatchObject({ status: 'void' });
  expect((await api().get(`/v1/collections/${other.collection}`)).body.status).toBe('voided');
  const bad = await api().post('/v1/invoices', { customer: customer.id, number: 'X', issue_date: NOW, due_date: NOW, subtotal: '1', tax_total: '1', total: '3' });
  expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'total' });
});
