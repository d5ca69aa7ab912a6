import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, getCol, getSub, historyTypes } from '../support/lifecycle.js';

/**
 * Issue 13: a credit note lowers what the invoice's collection asks, not only the invoice's balance.
 * A credit to zero settles the collection (no more charges, reminders or dunning; the subscription is
 * not left past_due; the hosted page asks nothing); a partial credit leaves the next charge asking the
 * rest; voiding a credit note asks the amount again (refused once the collection is closed); a credit
 * note racing a registered payment never takes off more than the balance.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  expect((await t.as(key).post('/v1/account/invoicing_settings', { enabled: true })).body.enabled).toBe(true);
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const money = (s: string) => BigInt(s.replace('.', ''));

async function collectSubscription() {
  const product = (await api().post('/v1/products', { name: 'Plan Crédito', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '119000', currency: 'COP' })).body;
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5, first_payment_invoicing: 'create' })).body;
  const col = await getCol(api(), sub.latest_collection);
  expect(col.invoice).toMatch(/^inv_/);
  return { clock, customer, sub, col, invoiceId: col.invoice as string };
}

test('a credit to zero settles a past-due collection: no more reminders or dunning, the subscription is active, the page and /pay ask nothing', async () => {
  const { clock, sub, col, invoiceId } = await collectSubscription();
  await advance(api(), clock.id, '2026-02-07T10:00:00.000Z');
  expect(await getCol(api(), col.id)).toMatchObject({ status: 'past_due' });
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'past_due' });
  const remindersBefore = (await historyTypes(api(), sub.id)).filter((x) => x === 'collection.reminder').length;
  expect(remindersBefore).toBeGreaterThan(0);

  const cn = await api().post(`/v1/invoices/${invoiceId}/credit_notes`, { amount: '119000', reason: 'Servicio no prestado' });
  expect(cn.status).toBe(200);
  expect(await getCol(api(), col.id)).toMatchObject({
    status: 'paid',
    total: '0.00',
    amount_due: '0.00',
    amount_credited: '119000.00',
    settled_by_credit_note: cn.body.id,
    credit_notes: [{ credit_note: cn.body.id, amount: '119000.00', voided: false }],
    next_collection_attempt_date: null,
  });
  expect((await api().get(`/v1/invoices/${invoiceId}`)).body).toMatchObject({ status: 'paid', amount_due: '0.00', amount_credited: '119000.00' });
  // Like a payment in full: the subscription is not left past_due.
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active' });

  // Past every dunning date: no reminder, no uncollectible, the subscription stays active.
  await advance(api(), clock.id, '2026-02-20T10:00:00.000Z');
  const types = await historyTypes(api(), sub.id);
  expect(types.filter((x) => x === 'collection.reminder').length).toBe(remindersBefore);
  expect(types).not.toContain('collection.uncollectible');
  expect(types).not.toContain('subscription.unpaid');
  expect(types).toEqual(expect.arrayContaining(['collection.credited', 'collection.paid']));
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active' });

  // Nothing left to pay: /pay is refused, the page shows no form.
  const pay = await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() });
  expect(pay.status).toBe(409);
  const page = await request(t.app.getHttpServer()).get(`/checkout/col/${col.id}`);
  expect(page.status).toBe(200);
  expect(page.text).not.toContain('name="_csrf"');
  expect(page.text).not.toContain(`/checkout/col/${col.id}/pay`);

  // The collection was settled by this credit note: voiding it is refused and nothing changes.
  const voided = await api().post(`/v1/credit_notes/${cn.body.id}/void`, {});
  expect(voided.status).toBe(409);
  expect(voided.body.error).toMatchObject({ code: 'invalid_state' });
  expect(voided.body.error.message).toContain(`collection ${col.id} is paid (settled by credit note ${cn.body.id})`);
  expect((await api().get(`/v1/credit_notes/${cn.body.id}`)).body).toMatchObject({ status: 'issued' });
  expect((await api().get(`/v1/invoices/${invoiceId}`)).body).toMatchObject({ status: 'paid', amount_due: '0.00' });
});

test('a partial credit: the next charge asks only the rest, the invoice records the rest paid', async () => {
  const { col, invoiceId } = await collectSubscription();
  const cn = await api().post(`/v1/invoices/${invoiceId}/credit_notes`, { amount: '19000', reason: 'Descuento' });
  expect(cn.status).toBe(200);
  expect(await getCol(api(), col.id)).toMatchObject({ status: 'pending', total: '100000.00', amount_due: '100000.00', amount_credited: '19000.00', subtotal: '119000.00' });
  // The hosted page asks the rest.
  const page = await request(t.app.getHttpServer()).get(`/checkout/col/${col.id}`);
  expect(page.text).toMatch(/100\.000/);
  expect(page.text).toContain('Notas crédito');
  expect(page.text).toMatch(/−\s*\$?\s*19\.000/);

  const paid = await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() });
  expect(paid.status).toBe(200);
  expect(paid.body).toMatchObject({ status: 'paid', total: '100000.00' });
  const charges = (await api().get(`/v1/charges?collection=${col.id}`)).body.data;
  expect(charges.map((c: { amount: string }) => c.amount)).toEqual(['100000.00']);
  expect((await api().get(`/v1/invoices/${invoiceId}`)).body).toMatchObject({ status: 'paid', total_paid: '100000.00', amount_credited: '19000.00', amount_due: '0.00' });
  expect((await api().get(`/v1/invoices/${invoiceId}/payments`)).body.data.map((p: { amount: string }) => p.amount)).toEqual(['100000.00']);
  // A credit note on a paid invoice is refused (nothing is due).
  expect((await api().post(`/v1/invoices/${invoiceId}/credit_notes`, { amount: '1', reason: 'x' })).status).toBe(400);
});

test('voiding a credit note asks the amount again, of the invoice and of its open collection', async () => {
  const { col, invoiceId } = await collectSubscription();
  const cn = await api().post(`/v1/invoices/${invoiceId}/credit_notes`, { amount: '40000', reason: 'Descuento' });
  expect(await getCol(api(), col.id)).toMatchObject({ total: '79000.00', amount_credited: '40000.00' });
  const voided = await api().post(`/v1/credit_notes/${cn.body.id}/void`, {});
  expect(voided.status).toBe(200);
  expect(voided.body).toMatchObject({ status: 'void' });
  expect(await getCol(api(), col.id)).toMatchObject({ status: 'pending', total: '119000.00', amount_due: '119000.00', amount_credited: '0.00', credit_notes: [{ credit_note: cn.body.id, voided: true }] });
  expect((await api().get(`/v1/invoices/${invoiceId}`)).body).toMatchObject({ status: 'open', amount_due: '119000.00', amount_credited: '0.00' });
  // Voiding again changes nothing.
  expect((await api().post(`/v1/credit_notes/${cn.body.id}/void`, {})).status).toBe(200);
  expect((await getCol(api(), col.id)).total).toBe('119000.00');
  const feed = ((await api().get(`/v1/events?object_id=${col.id}&limit=100`)).body.data as Array<{ type: string }>).map((e) => e.type);
  expect(feed).toEqual(expect.arrayContaining(['collection.credited', 'collection.credit_reversed']));
  // The whole amount can be paid again.
  expect((await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() })).body).toMatchObject({ status: 'paid', total: '119000.00' });
});

test('a credit note racing a registered payment for one invoice: never more than the balance is taken off', async () => {
  for (let round = 0; round < 4; round++) {
    const { customer } = await clockAndCustomer(api(), '2026-03-10T12:00:00.000Z');
    const inv = (
      await api().post('/v1/invoices', { customer: customer.id, number: `FE-R${round}-${Date.now()}`, issue_date: '2026-03-01T00:00:00.000Z', due_date: '2026-03-20T00:00:00.000Z', subtotal: '100000', tax_total: '0', total: '100000' })
    ).body;
    const [payment, credit] = await Promise.all([
      api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '60000' }),
      api().post(`/v1/invoices/${inv.id}/credit_notes`, { amount: '60000', reason: 'Carrera' }),
    ]);
    const invoice = (await api().get(`/v1/invoices/${inv.id}`)).body;
    const col = await getCol(api(), inv.collection);
    const applied = payment.status === 200 ? (payment.body.applied_to as Array<{ amount: string }>).reduce((s, a) => s + money(a.amount), 0n) : 0n;
    const credited = credit.status === 200 ? money(credit.body.amount) : 0n;
    // What was taken off, on the invoice and on its collection, never exceeds the total, and both agree.
    expect(applied + credited).toBeLessThanOrEqual(money('100000.00'));
    expect(money(invoice.total_paid)).toBe(applied);
    expect(money(invoice.amount_credited)).toBe(credited);
    expect(money(invoice.amount_due)).toBe(money('100000.00') - applied - credited);
    expect(money(col.total)).toBe(money('100000.00') - applied - credited);
    expect(money(col.amount_applied) + money(col.amount_credited)).toBe(applied + credited);
    // One of them went through whole; the other was refused or decided again on the rest.
    expect([payment.status, credit.status]).toContain(200);
  }
});
