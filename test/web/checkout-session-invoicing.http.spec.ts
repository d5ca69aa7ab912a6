import { jest } from '@jest/globals';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { csrfOf, openSession } from '../support/hosted-page.js';
import { billingSetup } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, getSub } from '../support/lifecycle.js';
import { SimulatedInvoicingProvider } from '#invoicing/provider/simulated-invoicing-provider.js';
import type { IssueInvoiceRequest } from '#invoicing/provider/invoicing-provider.port.js';
import { invoiceStream } from '#invoicing/domain/invoice/invoice.state.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';

/**
 * Issue 13 with issue 10: a checkout session's `invoicing` in subscription mode — `enabled: false`
 * switches off the subscription's first invoice; the session's `invoice_settings` (document id, cost
 * center, and `invoice_payment_method_credit`, `invoice_vendor`, `invoice_autoretention_tax_id`) reach
 * the invoice: on the invoice resource and in the provider's request. Payment mode carries them too.
 */
let t: TestApp;
let key: string;
const requests: IssueInvoiceRequest[] = [];
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Fiscal')).test_key;
  expect((await t.as(key).post('/v1/account/invoicing_settings', { enabled: true })).status).toBe(200);
  const provider = t.app.get(SimulatedInvoicingProvider);
  const issue = provider.issueInvoice.bind(provider);
  jest.spyOn(provider, 'issueInvoice').mockImplementation(async (r) => {
    requests.push(r);
    return issue(r);
  });
});
afterAll(() => t.close());

const api = () => t.as(key);
const approving = { method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '123' };
const SETTINGS = { invoice_document_id: 'FE', invoice_cost_center: 'CC-7', invoice_payment_method_credit: '30', invoice_vendor: 'VEND-12', invoice_autoretention_tax_id: '900123456' };

async function payOnPage(url: string) {
  const { browser, path, page } = await openSession(t, url);
  expect((await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(page.text) })).status).toBe(303);
}
const invoicesOf = async (customer: string) => (await api().get(`/v1/invoices?customer=${customer}&limit=100`)).body.data as any[];

test('subscription mode: the session invoice_settings reach the invoice (resource and provider request), and its renewals', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-03-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], invoicing: { enabled: true, invoice_settings: SETTINGS } })).body;
  await payOnPage(session.url);
  const sub = await getSub(api(), (await api().get(`/v1/checkout_session/${session.id}`)).body.subscription);
  expect(sub.status).toBe('active');
  const [invoice] = await invoicesOf(customer.id);
  expect(invoice).toMatchObject({ status: 'paid', collection: sub.latest_collection, invoice_settings: SETTINGS, issuance: { status: 'issued' } });
  expect(requests.find((r) => r.idempotencyKey === invoice.id)?.invoiceSettings).toEqual(SETTINGS);
  expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.invoice_settings).toEqual(SETTINGS);

  // The renewal's invoice is issued with the same settings (they are the subscription's).
  await advance(api(), clock.id, '2026-04-01T10:00:00.000Z');
  const invoices = await invoicesOf(customer.id);
  expect(invoices).toHaveLength(2);
  for (const i of invoices) expect(i.invoice_settings).toEqual(SETTINGS);
});

test('subscription mode with invoicing.enabled false: the first collection is not invoiced', async () => {
  const s = await billingSetup(api());
  const { customer } = await clockAndCustomer(api(), '2026-03-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], invoicing: { enabled: false } })).body;
  await payOnPage(session.url);
  const sub = await getSub(api(), (await api().get(`/v1/checkout_session/${session.id}`)).body.subscription);
  expect(sub.status).toBe('active');
  expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body).toMatchObject({ status: 'paid', invoice: null, invoicing: 'none' });
  expect(await invoicesOf(customer.id)).toHaveLength(0);

  // Without `invoicing` the subscription's own rules apply (the account invoices: after payment).
  const { customer: other } = await clockAndCustomer(api(), '2026-03-01T10:00:00.000Z');
  const plain = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: other.id, items: [{ price: s.monthly.id }] })).body;
  await payOnPage(plain.url);
  const [invoice] = await invoicesOf(other.id);
  expect(invoice).toMatchObject({ status: 'paid', invoice_settings: { invoice_document_id: null, invoice_cost_center: null, invoice_payment_method_credit: null, invoice_vendor: null, invoice_autoretention_tax_id: null } });
});

test('payment mode: the session invoice_settings reach the invoice', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], invoicing: { enabled: true, invoice_settings: SETTINGS } })).body;
  // Read-your-writes: the page's answer waits for the last event its payment wrote, the invoice's
  // `invoice.paid` included — not only for the session's outcome, which the collection's follow-up
  // records before invoicing records the payment (the answer came back before the invoice's
  // projection, and a GET right after it could read the invoice `open`).
  const engine = t.app.get(ProjectionEngine);
  const waited: string[] = [];
  const waitFor = jest.spyOn(engine, 'waitFor');
  waitFor.mockImplementation(async function (this: ProjectionEngine, position, timeoutMs) {
    if (position) waited.push(position);
    return ProjectionEngine.prototype.waitFor.call(this, position, timeoutMs);
  });
  try {
    await payOnPage(session.url);
  } finally {
    waitFor.mockRestore();
  }
  const col = (await api().get(`/v1/collections/${(await api().get(`/v1/checkout_session/${session.id}`)).body.collection}`)).body;
  const invoice = (await api().get(`/v1/invoices/${col.invoice}`)).body;
  expect(invoice).toMatchObject({ status: 'paid', invoice_settings: SETTINGS });
  expect(requests.find((r) => r.idempotencyKey === invoice.id)?.invoiceSettings).toEqual(SETTINGS);
  const paid = (await engine.eventStore.readStream(invoiceStream(invoice.id))).find((e) => e.type === 'invoice.paid')!;
  expect(paid).toBeDefined();
  expect(waited.length).toBeGreaterThan(0);
  expect(waited.reduce((a, b) => (a > b ? a : b)) >= paid.position).toBe(true);
});
