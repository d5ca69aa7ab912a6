import { invoicingApp } from '../support/invoicing-app.js';
import { card } from '../support/billing-fixtures.js';
import { clockAndCustomer } from '../support/lifecycle.js';
import type { EventStore, RecordedEvent } from '#event-store/event-store.port.js';
import { Invoicing } from '#invoicing/application/invoicing.js';
import { InvoicingFollower } from '#invoicing/application/invoicing-follower.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';

/**
 * Whether a collection is invoiced depends on the account's invoicing settings in force when it was
 * paid, whichever path decides (the inline step, the crash-safe follower after its grace, a re-run):
 * invoicing turned on right after a payment made while it was off issues nothing for that payment, and
 * invoicing turned off right after a payment made while it was on does not stop its invoice.
 */
const app = invoicingApp({ invoicing: false, env: { INVOICING_FOLLOWER: 'on', INVOICING_FOLLOWER_GRACE_MS: '300', INVOICING_FOLLOWER_POLL_MS: '50' } });
const api = app.api;
const NOW = '2026-03-10T12:00:00.000Z';

const settings = async (enabled: boolean) => {
  const res = await api().post('/v1/account/invoicing_settings', { enabled });
  expect(res.status).toBe(200);
  expect(res.body.enabled).toBe(enabled);
  return res.body;
};
async function collection(customer: string) {
  const product = (await api().post('/v1/products', { name: 'Servicio', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await api().post('/v1/prices', { product_id: product.id, type: 'one_time', unit_price: '119000', currency: 'COP' })).body;
  const col = await api().post('/v1/collections', { customer, items: [{ price: price.id }], collection_method: 'collect', days_until_due: 10, invoicing: 'after' });
  expect(col.status).toBe(200);
  return col.body as { id: string };
}
/** Every event the store holds (the whole log of this test app). */
async function log(): Promise<RecordedEvent[]> {
  const events = app.t.app.get<EventStore>(EVENT_STORE);
  const out: RecordedEvent[] = [];
  for (let page = await events.readAll({ maxCount: 500 }); page.length; page = await events.readAll({ after: page[page.length - 1].position, maxCount: 500 })) out.push(...page);
  return out;
}
/** Until the follower has handled everything written so far (its grace included), and the read models show what it wrote. */
async function followerCaughtUp() {
  const events = app.t.app.get<EventStore>(EVENT_STORE);
  await app.t.app.get(InvoicingFollower).waitFor((await events.headPosition())!);
  await app.t.app.get(ProjectionEngine).waitFor((await events.headPosition())!);
}
const ctx = () => ({ accountId: app.accountId, mode: 'test' as const, requestId: null, idempotencyKey: null });

test('paid while invoicing is off, invoicing turned on right after: no invoice, no invoice.* event, the numbering untouched — by the inline step, the follower or a re-run', async () => {
  const before = (await api().get('/v1/account/invoicing_settings')).body.numbering;
  const { customer } = await clockAndCustomer(api(), NOW);
  const byCard = await collection(customer.id);
  const outOfBand = await collection(customer.id);
  expect((await api().post(`/v1/collections/${byCard.id}/pay`, { payment_information: card() })).body).toMatchObject({ status: 'paid' });
  expect((await api().post(`/v1/collections/${outOfBand.id}/pay`, { paid_out_of_band: true })).body).toMatchObject({ status: 'paid' });
  // Turned on at once: within the follower's grace, before it looks at either payment.
  await settings(true);
  await followerCaughtUp();
  // A re-run of the follower's step (a crash before its checkpoint moved) decides the same.
  for (const id of [byCard.id, outOfBand.id]) {
    expect(await app.t.app.get(Invoicing).followCollectionEvent('collection.paid', ctx(), id)).toBeNull();
    expect(await app.t.app.get(Invoicing).followCollectionEvent('collection.created', ctx(), id)).toBeNull();
  }

  for (const id of [byCard.id, outOfBand.id]) expect((await api().get(`/v1/collections/${id}`)).body).toMatchObject({ status: 'paid', invoice: null, invoice_number: null });
  expect((await api().get(`/v1/invoices?customer=${customer.id}`)).body.data).toEqual([]);
  const types = (await log()).map((e) => e.type);
  expect(types.filter((t) => t.startsWith('invoice.') || t === 'invoicing_settings.number_assigned')).toEqual([]);
  expect((await api().get('/v1/account/invoicing_settings')).body).toMatchObject({ enabled: true, numbering: before });
});

test('paid while invoicing is on, invoicing turned off right after: the follower still issues its invoice', async () => {
  await settings(true);
  const { customer } = await clockAndCustomer(api(), NOW);
  // Paid out of band: no inline step invoices it; only the follower does, after its grace.
  const col = await collection(customer.id);
  expect((await api().post(`/v1/collections/${col.id}/pay`, { paid_out_of_band: true })).body).toMatchObject({ status: 'paid' });
  await settings(false);
  await followerCaughtUp();

  const invoices = (await api().get(`/v1/invoices?customer=${customer.id}`)).body.data;
  expect(invoices).toEqual([expect.objectContaining({ collection: col.id, status: 'paid', total_paid: '119000.00', issuance: expect.objectContaining({ status: 'issued' }) })]);
  expect((await api().get(`/v1/collections/${col.id}`)).body).toMatchObject({ invoice: invoices[0].id, invoice_number: invoices[0].number });
});
