import { invoicingApp } from '../support/invoicing-app.js';
import { clockAndCustomer } from '../support/lifecycle.js';
import { PaymentFollowUps } from '#collections/application/payment-follow-ups.js';
import { Invoicing } from '#invoicing/application/invoicing.js';
import { InvoicingFollower } from '#invoicing/application/invoicing-follower.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';

/**
 * Issue 13: invoicing is crash-safe. The inline step after a collection's write is skipped here (as
 * if the process had stopped right after the write); the follower of the event feed issues the
 * invoice from the durable `collection.*` event — also when it was down at the time and starts again
 * from its checkpoint — and running it again writes nothing new.
 */
const app = invoicingApp({ env: { INVOICING_FOLLOWER: 'on', INVOICING_FOLLOWER_GRACE_MS: '300', INVOICING_FOLLOWER_POLL_MS: '100' } });
beforeAll(() => {
  // The "crash": the inline invoicing after a collection is created never runs.
  app.t.app.get(PaymentFollowUps).collectionCreated = async () => null;
});
const api = app.api;
const NOW = '2026-03-10T12:00:00.000Z';

async function until<T>(what: string, probe: () => Promise<T | null | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function taxedPrice() {
  const product = (await api().post('/v1/products', { name: 'Servicio', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  return (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '119000', currency: 'COP' })).body;
}
const invoicesOf = async (customer: string) => (await api().get(`/v1/invoices?customer=${customer}&limit=100`)).body.data as Array<Record<string, any>>;
const feed = async (invoiceId: string) => ((await api().get(`/v1/events?object_id=${invoiceId}&limit=100`)).body.data as Array<{ type: string }>).map((e) => e.type);

test('the inline step never ran: the follower issues the invoice from collection.created', async () => {
  const price = await taxedPrice();
  const { customer } = await clockAndCustomer(api(), NOW);
  const col = await api().post('/v1/collections', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10, invoicing: 'create' });
  expect(col.status).toBe(200);
  const invoiceId = await until('the invoice', async () => (await api().get(`/v1/collections/${col.body.id}`)).body.invoice_number && (await api().get(`/v1/collections/${col.body.id}`)).body.invoice);
  expect((await api().get(`/v1/invoices/${invoiceId}`)).body).toMatchObject({ collection: col.body.id, customer: customer.id, total: '119000.00', amount_due: '119000.00', status: 'open', issuance: { status: 'issued' } });
  expect(await invoicesOf(customer.id)).toHaveLength(1);
  expect(await feed(invoiceId)).toEqual(['invoice.created', 'invoice.issued']);
});

test('the follower was down when collections were written: started again (a new instance, from its checkpoint) it issues what was missed, once', async () => {
  const follower = app.t.app.get(InvoicingFollower);
  await follower.stop();
  const price = await taxedPrice();
  const { customer } = await clockAndCustomer(api(), NOW);
  const created = await api().post('/v1/collections', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10, invoicing: 'create' });
  // `after`, paid out of band: the pay endpoint's inline step does not invoice either.
  const after = await api().post('/v1/collections', { customer: customer.id, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10, invoicing: 'after' });
  expect((await api().post(`/v1/collections/${after.body.id}/pay`, { paid_out_of_band: true })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 800));
  expect((await api().get(`/v1/collections/${created.body.id}`)).body.invoice).toBeNull();
  expect(await invoicesOf(customer.id)).toHaveLength(0);

  // The process starts again: a new follower over the same stores resumes from the checkpoint the old one left.
  const invoicing = app.t.app.get(Invoicing);
  const restarted = new InvoicingFollower(
    app.t.app.get(EVENT_STORE),
    app.t.app.get(READ_STORE),
    { name: 'invoicing:collections', handle: async (type, ctx, id, data) => void (await invoicing.followCollectionEvent(type, ctx, id, data)) },
    { pollMs: 100, graceMs: 0 },
  );
  await restarted.start();
  try {
    const invoices = await until('two invoices', async () => {
      const list = await invoicesOf(customer.id);
      return list.length === 2 && list.every((i) => i.issuance.status === 'issued') && list.some((i) => i.status === 'paid') ? list : null;
    });
    const byCollection = Object.fromEntries(invoices.map((i) => [i.collection, i]));
    expect(byCollection[created.body.id]).toMatchObject({ status: 'open', amount_due: '119000.00' });
    expect(byCollection[after.body.id]).toMatchObject({ status: 'paid', total_paid: '119000.00', amount_due: '0.00' });
    expect(await feed(byCollection[after.body.id].id)).toEqual(['invoice.created', 'invoice.issued', 'invoice.payment_recorded', 'invoice.paid']);
    // Idempotent: the same events handled again (a crash before the checkpoint moved) write nothing new.
    const before = await Promise.all(invoices.map((i) => feed(i.id)));
    const ctx = { accountId: app.accountId, mode: 'test' as const, requestId: null, idempotencyKey: null };
    expect(await invoicing.followCollectionEvent('collection.created', ctx, created.body.id)).toBeNull();
    expect(await invoicing.followCollectionEvent('collection.paid', ctx, after.body.id)).toBeNull();
    expect(await Promise.all(invoices.map((i) => feed(i.id)))).toEqual(before);
    expect(await invoicesOf(customer.id)).toHaveLength(2);
  } finally {
    await restarted.stop();
  }
});

test('a registered payment whose invoice step never ran: the follower records it on the invoice from collection.payment_applied, naming the receipt', async () => {
  const follower = app.t.app.get(InvoicingFollower);
  await follower.start(); // stopped by the test before; resumes from the shared checkpoint
  app.t.app.get(PaymentFollowUps).registeredPaymentApplied = async () => null;
  const { customer } = await clockAndCustomer(api(), NOW);
  const inv = (await api().post('/v1/invoices', { customer: customer.id, number: 'FE-F1', issue_date: NOW, due_date: '2026-03-20T12:00:00.000Z', subtotal: '30000', tax_total: '0', total: '30000' })).body;
  const receipt = await api().post(`/v1/customers/${customer.id}/register_invoices_payment`, { amount: '10000' });
  expect(receipt.status).toBe(200);
  const recorded = await until('the payment on the invoice', async () => {
    const body = (await api().get(`/v1/invoices/${inv.id}`)).body;
    return body.total_paid === '10000.00' ? body : null;
  });
  expect(recorded).toMatchObject({ status: 'partially_paid', amount_due: '20000.00' });
  expect((await api().get(`/v1/invoices/${inv.id}/payments`)).body.data).toEqual([expect.objectContaining({ amount: '10000.00', receipt: receipt.body.id, collection: inv.collection })]);
  expect(await feed(inv.id)).toEqual(['invoice.created', 'invoice.payment_recorded']);
});
