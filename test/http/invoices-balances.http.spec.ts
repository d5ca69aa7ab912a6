import { invoicingApp } from '../support/invoicing-app.js';
import { clockAndCustomer } from '../support/lifecycle.js';

/**
 * Issue 13, §3 and §5: register_invoices_payment, partial_payment and update/total weigh a
 * collection against its fiscal invoice's real balance (credit notes taken off); two registered
 * payments racing for one customer never apply the same balance twice; the event feed of one invoice
 * shows every step by which it reached its balance.
 */
const app = invoicingApp();
const api = app.api;
const NOW = '2026-03-10T12:00:00.000Z';
const money = (s: string) => BigInt(s.replace('.', ''));
const sumOf = (xs: string[]) => xs.reduce((a, b) => a + money(b), 0n);

const upload = (customer: string, number: string, dueInDays: number, total: string) => app.upload(NOW, customer, number, dueInDays, total);
const getInvoice = async (id: string) => (await api().get(`/v1/invoices/${id}`)).body;

test('an invoice issued for a collection: payment, credit note, payment that settles it — the feed filtered by invoice and by customer walks each step', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const product = (await api().post('/v1/products', { name: 'Servicio', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '119000', currency: 'COP' })).body;
  const col = await api().post('/v1/collections', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10, invoicing: 'create' });
  expect(col.status).toBe(200);
  const invoiceId = (await api().get(`/v1/collections/${col.body.id}`)).body.invoice;
  expect(invoiceId).toMatch(/^inv_/);
  expect(await getInvoice(invoiceId)).toMatchObject({ status: 'open', total: '119000.00', amount_due: '119000.00', issuance: { status: 'issued' } });

  const first = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '50000' });
  expect(first.status).toBe(200);
  expect(await getInvoice(invoiceId)).toMatchObject({ status: 'partially_paid', total_paid: '50000.00', amount_due: '69000.00' });
  const credit = await api().post(`/v1/invoices/${invoiceId}/credit_notes`, { amount: '19000', reason: 'Descuento' });
  expect(credit.status).toBe(200);
  // The credit note is taken off what the collection asks too: 69000 − 19000, the invoice's balance.
  expect((await api().get(`/v1/collections/${col.body.id}`)).body).toMatchObject({ status: 'pending', total: '50000.00', amount_due: '50000.00', amount_credited: '19000.00', credit_notes: [{ credit_note: credit.body.id, amount: '19000.00', voided: false }] });
  const over = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '50000.01' });
  expect(over.status).toBe(400);
  expect(over.body.error).toMatchObject({ code: 'amount_exceeds_balance', param: 'amount' });
  expect(over.body.error.message).toContain('50000.00 COP over 1 collection');

  const settle = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '50000' });
  expect(settle.status).toBe(200);
  expect(settle.body.applied_to).toEqual([{ collection: col.body.id, amount: '50000.00' }]);
  expect(await getInvoice(invoiceId)).toMatchObject({ status: 'paid', total_paid: '100000.00', amount_credited: '19000.00', amount_due: '0.00' });
  // The collection is paid: the money applied, the rest taken off by the credit note.
  expect((await api().get(`/v1/collections/${col.body.id}`)).body).toMatchObject({ status: 'paid', amount_applied: '50000.00', amount_credited: '19000.00', paid_by: settle.body.id });

  type Ev = { type: string; data: { object: { id: string; amount_due: string; total_paid: string; amount_credited: string } } };
  const steps = ((await api().get(`/v1/events?object_id=${invoiceId}&limit=100`)).body.data as Ev[]).map((e) => [e.type, e.data.object.total_paid, e.data.object.amount_credited, e.data.object.amount_due]);
  expect(steps).toEqual([
    ['invoice.created', '0.00', '0.00', '119000.00'],
    ['invoice.issued', '0.00', '0.00', '119000.00'],
    ['invoice.payment_recorded', '50000.00', '0.00', '69000.00'],
    ['invoice.credited', '50000.00', '19000.00', '50000.00'],
    ['invoice.payment_recorded', '100000.00', '19000.00', '0.00'],
    ['invoice.paid', '100000.00', '19000.00', '0.00'],
  ]);
  const byCustomer = ((await api().get(`/v1/events?customer=${customer.id}&type=invoice.*&limit=100`)).body.data as Ev[])
    .filter((e) => e.data.object.id === invoiceId)
    .map((e) => e.type);
  expect(byCustomer).toEqual(steps.map(([type]) => type));
  // The credit note's own step is in the customer's feed too.
  const notes = ((await api().get(`/v1/events?customer=${customer.id}&type=credit_note.*&limit=100`)).body.data as Ev[]).map((e) => [e.type, e.data.object.id]);
  expect(notes).toEqual(expect.arrayContaining([['credit_note.created', credit.body.id]]));
});

test('partial_payment and update/total check their conditions against the invoice real balance (credit notes off); the balance collection shares the invoice', async () => {
  const { customer } = await clockAndCustomer(api(), NOW);
  const inv = await upload(customer.id, 'FE-P1', 10, '100000.00');
  expect((await api().post(`/v1/invoices/${inv.id}/credit_notes`, { amount: '40000', reason: 'Devolución parcial' })).status).toBe(200);
  // The credit note was taken off the collection too: it asks 60000, what the invoice owes.
  const tooMuch = await api().post(`/v1/collections/${inv.collection}/partial_payment`, { amount: '60000' });
  expect(tooMuch.status).toBe(400);
  expect(tooMuch.body.error).toMatchObject({ code: 'parameter_invalid', param: 'amount', message: `amount must be less than the total of collection ${inv.collection} (60000.00 COP)` });
  const part = await api().post(`/v1/collections/${inv.collection}/partial_payment`, { amount: '20000', create_collection_with_balance: true, days_until_due: 10 });
  expect(part.status).toBe(200);
  expect(part.body.partial_payment).toMatchObject({ original_total: '60000.00', amount: '20000.00', balance: '40000.00' });
  const balanceId = part.body.partial_payment.balance_collection;
  expect((await api().get(`/v1/collections/${balanceId}`)).body).toMatchObject({ total: '40000.00', invoice: inv.id, balance_of: inv.collection });

  // update/total on the balance: 20000 + 50000 would ask 70000 of an invoice that owes 60000.
  const five = await api().post(`/v1/collections/${balanceId}/update/total`, { total: '50000' });
  expect(five.status).toBe(400);
  expect(five.body.error.code).toBe('collection_total_not_updatable');
  expect(five.body.error.message).toContain(`more than the invoice total 100000.00 less 40000.00 credited`);
  expect((await api().post(`/v1/collections/${balanceId}/update/total`, { total: '30000' })).body).toMatchObject({ total: '30000.00' });

  // The first part is paid (a registered payment: the invoice's two collections share its due date, the first goes first); the invoice records it.
  const first = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '20000' });
  expect(first.body.applied_to).toEqual([{ collection: inv.collection, amount: '20000.00' }]);
  expect(await getInvoice(inv.id)).toMatchObject({ total_paid: '20000.00', amount_due: '40000.00' });
  const four = await api().post(`/v1/collections/${balanceId}/update/total`, { total: '40000.01' });
  expect(four.body.error.message).toContain(`is more than the balance of invoice ${inv.id}: 40000.00 (invoice total 100000.00 less 20000.00 paid and 40000.00 credited)`);
  expect((await api().post(`/v1/collections/${balanceId}/update/total`, { total: '40000' })).status).toBe(200);
  // More than the invoice still owes (40000) is refused whole; the balance collection's payment is recorded on the same invoice.
  expect((await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '40000.01' })).body.error).toMatchObject({ code: 'amount_exceeds_balance' });
  const rest = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '40000' });
  expect(rest.body.applied_to).toEqual([{ collection: balanceId, amount: '40000.00' }]);
  expect(await getInvoice(inv.id)).toMatchObject({ status: 'paid', total_paid: '60000.00', amount_credited: '40000.00', amount_due: '0.00' });
  expect((await api().get(`/v1/invoices/${inv.id}/payments`)).body.data.map((p: { collection: string; amount: string }) => [p.collection, p.amount])).toEqual([
    [inv.collection, '20000.00'],
    [balanceId, '40000.00'],
  ]);
});

test('two registered payments racing for one customer: every balance is applied once (invoices, collections and receipts agree)', async () => {
  for (let round = 0; round < 3; round++) {
    const { customer } = await clockAndCustomer(api(), NOW);
    const invoices = [await upload(customer.id, `FE-R${round}-1`, -30, '40000.00'), await upload(customer.id, `FE-R${round}-2`, -5, '35000.00'), await upload(customer.id, `FE-R${round}-3`, 7, '25000.00')];
    const [a, b] = await Promise.all([
      api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '60000' }),
      api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '60000' }),
    ]);
    // 100000 owed, 120000 sent: at most 100000 is applied; a request that found too little open is refused whole (400, nothing written) or keeps its rest unapplied.
    const answers = [a, b];
    for (const r of answers) expect([200, 400, 409]).toContain(r.status);
    expect(answers.some((r) => r.status === 200)).toBe(true);
    const receipts = answers.filter((r) => r.status === 200).map((r) => r.body);
    const appliedByReceipts = sumOf(receipts.flatMap((r) => r.applied_to.map((x: { amount: string }) => x.amount)));
    const after = await Promise.all(invoices.map((i) => getInvoice(i.id)));
    const paidOnInvoices = sumOf(after.map((i) => i.total_paid));
    expect(paidOnInvoices).toBe(appliedByReceipts);
    expect(paidOnInvoices <= 10000000n).toBe(true);
    for (const [i, inv] of after.entries()) {
      expect(money(inv.total_paid) <= money(invoices[i].total)).toBe(true);
      // Each receipt's payment recorded once per invoice.
      const ids = inv.payments ? inv.payments.map((p: { id: string }) => p.id) : (await api().get(`/v1/invoices/${inv.id}/payments`)).body.data.map((p: { id: string }) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      const col = (await api().get(`/v1/collections/${invoices[i].collection}`)).body;
      // The collection asks exactly what the invoice still owes.
      expect(col.status === 'paid' ? '0.00' : col.total).toBe(inv.amount_due);
    }
    // A refusal wrote nothing; a 200 received all its 60000 (applied, or kept unapplied on the receipt when the other took the rest).
    for (const r of receipts) expect(r.total).toBe('60000.00');
    if (receipts.length === 2) expect(appliedByReceipts).toBe(10000000n);
    else expect(appliedByReceipts).toBe(6000000n);
  }
});
