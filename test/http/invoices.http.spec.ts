import { invoicingApp } from '../support/invoicing-app.js';
import { card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, getCol, getSub } from '../support/lifecycle.js';

/**
 * Issue 13: fiscal invoices through the invoicing-provider port (the embedded simulator), driven by
 * test clocks: when they are issued, their balance (payments, credit notes), voids, a provider that
 * fails and is retried on a durable deadline, and the event feed an auditor follows.
 */
const app = invoicingApp();
const api = app.api;
const START = '2026-01-31T10:00:00.000Z';
const RENEWAL = '2026-02-28T10:00:00.000Z';

/** A product taxed at 19 % IVA with a monthly price of 119000 COP (taxes included). */
async function taxedPrice() {
  const product = (await api().post('/v1/products', { name: 'Plan Fiscal', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '119000', currency: 'COP' })).body;
  return price;
}

const invoicesOf = async (customer: string) => (await api().get(`/v1/invoices?customer=${customer}&limit=100`)).body.data as any[];
const feed = async (query: string) => ((await api().get(`/v1/events?limit=100&${query}`)).body.data as any[]).map((e) => e.type);

test('charge + first_payment_invoicing after: an invoice when the first collection is paid, and one per renewal (test clock)', async () => {
  const price = await taxedPrice();
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (
    await api().post('/v1/subscriptions', {
      customer: customer.id,
      items: [{ price: price.id }],
      payment_information: card(),
      first_payment_invoicing: 'after',
      invoice_retentions: { retefte: '2.5', reteiva: '15' },
    })
  ).body;
  expect(sub.status).toBe('active');
  let invoices = await invoicesOf(customer.id);
  expect(invoices).toHaveLength(1);
  const first = invoices[0];
  expect(first).toMatchObject({
    object: 'invoice',
    status: 'paid',
    customer: customer.id,
    subscription: sub.id,
    collection: sub.latest_collection,
    currency: 'COP',
    subtotal: '100000.00',
    tax_total: '19000.00',
    total: '119000.00',
    total_paid: '119000.00',
    amount_due: '0.00',
    overdue: false,
    retentions: [
      { type: 'reteiva', rate: '15', amount: '2850.00' },
      { type: 'retefte', rate: '2.5', amount: '2500.00' },
    ],
    issuance: { status: 'issued', attempts: 1 },
  });
  expect(first.number).toMatch(/^SETT\d+$/);
  expect(first.fiscal.cufe).toMatch(/^[0-9a-f]{96}$/);
  expect(first.fiscal.pdf_url).toMatch(/\.pdf$/);
  expect(await getCol(api(), sub.latest_collection)).toMatchObject({ invoice: first.id, invoice_number: first.number, invoices: [first.id] });
  expect((await api().get(`/v1/invoices/${first.id}/payments`)).body.data).toEqual([
    expect.objectContaining({ object: 'invoice_payment', amount: '119000.00', collection: sub.latest_collection, payment_method_type: 'card' }),
  ]);

  await advance(api(), clock.id, RENEWAL);
  const renewed = await getSub(api(), sub.id);
  invoices = await invoicesOf(customer.id);
  expect(invoices).toHaveLength(2);
  const second = invoices.find((i) => i.collection === renewed.latest_collection);
  expect(second).toMatchObject({ status: 'paid', total: '119000.00', issue_date: RENEWAL });
  expect(Number(second.number.slice(4))).toBe(Number(first.number.slice(4)) + 1);
  expect(await feed(`object_id=${second.id}`)).toEqual(['invoice.created', 'invoice.issued', 'invoice.payment_recorded', 'invoice.paid']);
});

test('renewal_invoicing false: the first collection is invoiced, renewals are not', async () => {
  const price = await taxedPrice();
  const { clock, customer } = await clockAndCustomer(api(), START);
  await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], payment_information: card(), renewal_invoicing: false });
  await advance(api(), clock.id, RENEWAL);
  expect(await invoicesOf(customer.id)).toHaveLength(1);
});

test('collect + first_payment_invoicing create: the invoice at creation (open, due with the collection); voiding the collection voids it', async () => {
  const price = await taxedPrice();
  const { customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5, first_payment_invoicing: 'create' })).body;
  const [invoice] = await invoicesOf(customer.id);
  expect(invoice).toMatchObject({ status: 'open', total: '119000.00', amount_due: '119000.00', due_date: '2026-02-06T04:59:59.999Z', collection: sub.latest_collection, overdue: false });
  expect((await api().post(`/v1/collections/${sub.latest_collection}/void`, {})).status).toBe(200);
  expect((await api().get(`/v1/invoices/${invoice.id}`)).body).toMatchObject({ status: 'void' });
  expect(await feed(`object_id=${invoice.id}`)).toEqual(['invoice.created', 'invoice.issued', 'invoice.voided']);
});

test('a credit note brings the balance to zero (paid); never below zero; a paid invoice cannot be voided', async () => {
  const price = await taxedPrice();
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5, first_payment_invoicing: 'create' })).body;
  const [invoice] = await invoicesOf(customer.id);
  await advance(api(), clock.id, '2026-02-10T10:00:00.000Z');
  expect((await api().get(`/v1/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open', overdue: true });

  const half = await api().post(`/v1/invoices/${invoice.id}/credit_notes`, { amount: '19000', reason: 'Descuento comercial' });
  expect(half.status).toBe(200);
  expect(half.body).toMatchObject({ object: 'credit_note', invoice: invoice.id, amount: '19000.00', status: 'issued', issuance: { status: 'issued' } });
  expect(half.body.number).toMatch(/^NC\d+$/);
  // The collection asks only the rest.
  expect(await getCol(api(), sub.latest_collection)).toMatchObject({ status: 'past_due', total: '100000.00', amount_credited: '19000.00' });
  // Voiding a credit note gives the balance back (the invoice's and the collection's).
  const voided = await api().post(`/v1/credit_notes/${half.body.id}/void`, {});
  expect(voided.body).toMatchObject({ status: 'void' });
  expect((await api().get(`/v1/invoices/${invoice.id}`)).body).toMatchObject({ status: 'open', amount_due: '119000.00' });
  expect(await getCol(api(), sub.latest_collection)).toMatchObject({ total: '119000.00', amount_credited: '0.00' });

  const tooMuch = await api().post(`/v1/invoices/${invoice.id}/credit_notes`, { amount: '119000.01', reason: 'x' });
  expect(tooMuch.status).toBe(400);
  expect(tooMuch.body.error).toMatchObject({ code: 'credit_note_exceeds_balance', param: 'amount' });
  const rest = await api().post(`/v1/invoices/${invoice.id}/credit_notes`, { amount: '119000', reason: 'Anulación del saldo' });
  expect(rest.status).toBe(200);
  expect((await api().get(`/v1/invoices/${invoice.id}`)).body).toMatchObject({ status: 'paid', amount_credited: '119000.00', amount_due: '0.00', overdue: false });
  expect((await api().get(`/v1/invoices/${invoice.id}/credit_notes`)).body.data).toHaveLength(2);
  expect((await api().get(`/v1/credit_notes/${rest.body.id}`)).body).toMatchObject({ amount: '119000.00', reason: 'Anulación del saldo' });
  // The credit settled the collection: its void is refused (docs/decisions/0040-credit-notes.md).
  expect((await api().post(`/v1/credit_notes/${rest.body.id}/void`, {})).status).toBe(409);
  expect(sub.id).toMatch(/^sub_/);
  expect(await feed(`object_id=${invoice.id}`)).toEqual(['invoice.created', 'invoice.issued', 'invoice.credited', 'invoice.credit_reversed', 'invoice.credited', 'invoice.paid']);
});

test('refunding a paid, invoiced collection issues a credit note for the amount refunded; a paid invoice is not voided', async () => {
  const price = await taxedPrice();
  const { customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], payment_information: card() })).body;
  const [invoice] = await invoicesOf(customer.id);
  const refused = await api().post(`/v1/invoices/${invoice.id}/void`, {});
  expect(refused.status).toBe(409);
  expect((await api().post(`/v1/collections/${sub.latest_collection}/refund`, { amount: '19000' })).status).toBe(200);
  const after = (await api().get(`/v1/invoices/${invoice.id}`)).body;
  expect(after).toMatchObject({ status: 'paid', total_paid: '100000.00', amount_credited: '19000.00', amount_due: '0.00' });
  const [note] = (await api().get(`/v1/invoices/${invoice.id}/credit_notes`)).body.data;
  expect(note).toMatchObject({ amount: '19000.00', refund: expect.stringMatching(/^re_/), issuance: { status: 'issued' } });
});

test('a refund with a blank reason still gets its credit note (the note names the refund instead)', async () => {
  const price = await taxedPrice();
  const { customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], payment_information: card() })).body;
  const [invoice] = await invoicesOf(customer.id);
  const refund = await api().post(`/v1/collections/${sub.latest_collection}/refund`, { amount: '19000', reason: '   ' });
  expect(refund.status).toBe(200);
  const [note] = (await api().get(`/v1/invoices/${invoice.id}/credit_notes`)).body.data;
  expect(note).toMatchObject({ amount: '19000.00', reason: expect.stringMatching(/^Refund re_\w+ of collection col_/), issuance: { status: 'issued' } });
  expect((await api().get(`/v1/invoices/${invoice.id}`)).body).toMatchObject({ amount_credited: '19000.00' });
});

test('a provider that fails twice: the invoice waits with its state visible, is retried on its deadline, then issued', async () => {
  const price = await taxedPrice();
  const { clock, customer } = await clockAndCustomer(api(), START);
  expect((await api().post('/v1/test_helpers/invoicing_provider', { fail_next: 2 })).body).toMatchObject({ fail_next: 2 });
  await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 5, first_payment_invoicing: 'create' });
  let [invoice] = await invoicesOf(customer.id);
  expect(invoice).toMatchObject({ number: null, issuance: { status: 'failed', attempts: 1, next_attempt_at: '2026-01-31T10:01:00.000Z' } });
  expect(invoice.issuance.last_error).toMatch(/provider_unavailable/);

  await advance(api(), clock.id, '2026-01-31T10:01:00.000Z');
  invoice = (await api().get(`/v1/invoices/${invoice.id}`)).body;
  expect(invoice).toMatchObject({ number: null, issuance: { status: 'failed', attempts: 2, next_attempt_at: '2026-01-31T10:06:00.000Z' } });

  await advance(api(), clock.id, '2026-01-31T10:06:00.000Z');
  invoice = (await api().get(`/v1/invoices/${invoice.id}`)).body;
  expect(invoice).toMatchObject({ status: 'open', issuance: { status: 'issued', attempts: 3, next_attempt_at: null }, issue_date: '2026-01-31T10:06:00.000Z' });
  expect(invoice.number).toMatch(/^SETT\d+$/);
  expect(await feed(`object_id=${invoice.id}`)).toEqual(['invoice.created', 'invoice.issuance_failed', 'invoice.issuance_failed', 'invoice.issued']);
});

test('invoicing settings: numbering range and default withholdings (API); disabled: nothing issued', async () => {
  const acct = await app.t.account();
  const client = app.t.as(acct.test_key);
  expect((await client.get('/v1/account/invoicing_settings')).body).toMatchObject({ object: 'invoicing_settings', enabled: false, provider: 'simulator', numbering: { prefix: 'SETT', next_number: 1 } });
  const set = await client.post('/v1/account/invoicing_settings', { enabled: true, numbering: { prefix: 'FE', next_number: 990, range_end: 5000 }, default_retentions: { reteica: '9.66' } });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ numbering: { prefix: 'FE', next_number: 990, range_end: 5000 }, default_retentions: { reteica: '9.66' } });
  expect((await client.post('/v1/account/invoicing_settings', { numbering: { prefix: 'fe-1' } })).body.error).toMatchObject({ code: 'parameter_invalid', param: 'numbering[prefix]' });
  const product = (await client.post('/v1/products', { name: 'P', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await client.post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '119000' })).body;
  const customer = (await client.post('/v1/customers', { email: `inv.${Date.now()}@example.com` })).body;
  await client.post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], payment_information: card() });
  const [invoice] = (await client.get(`/v1/invoices?customer=${customer.id}`)).body.data;
  // Bogotá's ReteICA, 9.66 ‰ of the taxable base 100,000: 966.
  expect(invoice).toMatchObject({ number: 'FE990', retentions: [{ type: 'reteica', rate: '9.66', base: '100000.00', amount: '966.00' }], retention_total: '966.00' });
  await client.post('/v1/account/invoicing_settings', { enabled: false });
  const other = (await client.post('/v1/customers', { email: `inv2.${Date.now()}@example.com` })).body;
  await client.post('/v1/subscriptions', { customer: other.id, items: [{ price: price.id }], payment_information: card() });
  expect((await client.get(`/v1/invoices?customer=${other.id}`)).body.data).toEqual([]);
});

test('list: due-date order, filters by status and due-date range; 404 for another account', async () => {
  const price = await taxedPrice();
  const { customer } = await clockAndCustomer(api(), START);
  for (const days of [9, 3, 6]) {
    await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: days, first_payment_invoicing: 'create' });
  }
  const all = await invoicesOf(customer.id);
  // Due Feb 3, 6 and 9 in Bogotá, each until its end there.
  expect(all.map((i) => i.due_date)).toEqual(['2026-02-04T04:59:59.999Z', '2026-02-07T04:59:59.999Z', '2026-02-10T04:59:59.999Z']);
  const ranged = (await api().get(`/v1/invoices?customer=${customer.id}&due_date_from=2026-02-04&due_date_to=2026-02-08`)).body.data;
  expect(ranged.map((i: any) => i.due_date)).toEqual(['2026-02-07T04:59:59.999Z']);
  // A date bound is a whole Bogotá day: from Feb 6 to Feb 6 finds the invoice due Feb 6.
  const oneDay = (await api().get(`/v1/invoices?customer=${customer.id}&due_date_from=2026-02-06&due_date_to=2026-02-06`)).body.data;
  expect(oneDay.map((i: any) => i.due_date)).toEqual(['2026-02-07T04:59:59.999Z']);
  expect((await api().get(`/v1/invoices?customer=${customer.id}&status=paid`)).body.data).toEqual([]);
  expect((await api().get(`/v1/invoices?due_date_from=nope`)).status).toBe(400);
  const other = await app.t.account();
  expect((await app.t.as(other.test_key).get(`/v1/invoices/${all[0].id}`)).status).toBe(404);
});
