import { startTestApp, type TestApp } from '../support/test-app.js';
import { csrfOf, openSession } from '../support/hosted-page.js';
import { billingSetup } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer } from '../support/lifecycle.js';
import { feed, lastEventId } from '../support/subscription-helpers.js';

/**
 * A session's life after the customer pays, over the pages' own HTTP calls and a test clock — the
 * gateway is asked first: a decline makes nothing (`checkout_session.payment_failed`, the session
 * open) and, never retried, ends at expires_at (`checkout_session.expired`, nothing to void); an
 * approval completes the session first, then makes its subscription and collection; a PSE payment
 * completes it processing, and a bank that then refuses leaves it complete and unpaid with the reason
 * and a retry (of its collection) on the same page until expires_at, when its collection is voided.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account('Tienda Ana')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const declining = { method: 'card', card_number: '4000000000000002', card_exp: '12/30', card_cvc: '123' };
const approving = { method: 'card', card_number: '4242424242424242', card_exp: '12/30', card_cvc: '123' };


test('declined on the page and never retried: the session stays open until expires_at (24 h), then expires; no subscription or collection was ever made (test clock)', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-03-01T10:00:00.000Z');
  // The default life: 24 hours (longer than a subscription's own 23-hour first-payment window).
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }] })).body;
  expect(session.expires_at).toBe('2026-03-02T10:00:00.000Z');
  const before = await lastEventId(api());
  const { browser, path, page } = await openSession(t, session.url);
  const post = await browser.post(`${path}/pay`).type('form').send({ ...declining, _csrf: csrfOf(page.text) });
  expect([post.status, post.headers.location]).toEqual([303, path]); // post/redirect/get
  const declined = await browser.get(path);
  expect(declined.text).toContain('role="alert"');
  expect(declined.text).toContain(`action="${path}/pay"`); // the retry, on the same page
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid).toMatchObject({ status: 'open', payment_status: 'unpaid', completed_at: null, subscription: null, collection: null, last_payment: expect.objectContaining({ status: 'declined', decline_code: 'generic_decline' }) });

  await advance(api(), clock.id, '2026-03-02T09:59:00.000Z');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body.status).toBe('open');
  await advance(api(), clock.id, '2026-03-02T11:00:00.000Z');

  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'expired', payment_status: 'unpaid', completed_at: null, expired_at: '2026-03-02T10:00:00.000Z' });
  // One end: open → expired (never completed); the decline is the session's own event, nothing else was made.
  const events = (await feed(api(), before)).filter((e) => !e.type.startsWith('test_clock.'));
  expect(events.map((e) => e.type)).toEqual(['checkout_session.payment_failed', 'checkout_session.expired']);
  expect(events[0].data.object).toMatchObject({ id: session.id, status: 'open', payment_status: 'unpaid', last_payment: { status: 'declined', failure_code: 'card_declined' } });
  expect(events[1].data.object).toMatchObject({ id: session.id, status: 'expired', payment_status: 'unpaid', collection: null, subscription: null });
  expect((await api().get(`/v1/subscriptions?customer=${customer.id}`)).body.data).toHaveLength(0);

  // The page shows that it expired (no form), and a late payment is refused.
  const expired = await browser.get(path);
  expect(expired.status).toBe(200);
  expect(expired.text).toContain('expiró');
  expect(expired.text).toContain('no se hizo ningún cobro');
  expect(expired.text).not.toContain(`action="${path}/pay"`);
  const late = await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(declined.text) });
  expect(late.status).toBe(303);
  expect((await api().get(`/v1/charges?customer=${customer.id}`)).body.data.filter((c: { status: string }) => c.status === 'succeeded' || c.status === 'paid')).toHaveLength(0);
});

test('declined, then paid with a good card in the session\'s last hour (23 h 30 min): paid, the subscription active; the events exactly', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-03-05T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }] })).body;
  const before = await lastEventId(api());
  const { browser, path, page } = await openSession(t, session.url);
  expect((await browser.post(`${path}/pay`).type('form').send({ ...declining, _csrf: csrfOf(page.text) })).status).toBe(303);
  const declined = await browser.get(path);

  // Past the 23-hour window a subscription of its own would have: still payable.
  await advance(api(), clock.id, '2026-03-06T09:30:00.000Z');
  const again = await browser.get(path);
  expect(again.status).toBe(200);
  expect(again.text).toContain(`action="${path}/pay"`);
  const paid = await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(again.text) });
  expect(paid.status).toBe(303);
  const thanks = await browser.get(path);
  expect(thanks.text).not.toContain('Cannot pay');
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid).toMatchObject({ status: 'complete', payment_status: 'paid', completed_at: '2026-03-06T09:30:00.000Z' });
  expect((await api().get(`/v1/subscriptions/${mid.subscription}`)).body).toMatchObject({ status: 'active', first_payment_expires_at: null });
  expect((await api().get(`/v1/collections/${mid.collection}`)).body.status).toBe('paid');

  const events = (await feed(api(), before)).filter((e) => /^(checkout_session|subscription|collection)\./.test(e.type));
  expect(events.map((e) => e.type)).toEqual(['checkout_session.payment_failed', 'checkout_session.completed', 'subscription.created', 'collection.created', 'collection.paid', 'subscription.activated', 'subscription.updated']);
  expect(events[1].data.object).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid' });
  // expires_at then changes nothing.
  await advance(api(), clock.id, '2026-03-06T11:00:00.000Z');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body.status).toBe('complete');
  expect((await api().get(`/v1/subscriptions/${mid.subscription}`)).body.status).toBe('active');
});

test('a declined card then an approving one before expires_at: paid, and expires_at then changes nothing', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-04-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: customer.id, items: [{ price: s.setupFee.id }], expires_at: '2026-04-01T11:00:00.000Z' })).body;
  const { browser, path, page } = await openSession(t, session.url);
  expect((await browser.post(`${path}/pay`).type('form').send({ ...declining, _csrf: csrfOf(page.text) })).status).toBe(303);
  const declined = await browser.get(path);
  const paid = await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(declined.text) });
  expect(paid.status).toBe(303);
  await advance(api(), clock.id, '2026-04-01T12:00:00.000Z');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid' });
  expect((await api().get(`/v1/collections/${after.collection}`)).body.status).toBe('paid');
});

test('PSE refused at the bank: the session (complete when the customer paid at the bank) is unpaid again with the reason and a retry on the same page; left so, at expires_at its collection is voided', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-05-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: customer.id, items: [{ price: s.setupFee.id }], expires_at: '2026-05-01T11:00:00.000Z' })).body;
  const { browser, path, page } = await openSession(t, session.url);
  const started = await browser.post(`${path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(page.text) });
  expect(started.status).toBe(303);
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'processing' });
  const bankPath = new URL(started.headers.location).pathname;
  const bank = await browser.get(bankPath);
  const rejected = await browser.post(bankPath).type('form').send({ decision: 'reject', _csrf: csrfOf(bank.text) });
  expect(rejected.status).toBe(303);
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid).toMatchObject({ status: 'complete', payment_status: 'unpaid', last_payment: expect.objectContaining({ status: 'declined', failure_code: 'payment_not_completed' }) });
  const back = await browser.get(path);
  expect(back.status).toBe(200);
  expect(back.text).toContain('role="alert"');
  expect(back.text).toContain('El banco no confirmó el pago');
  expect(back.text).toContain(`action="${path}/pay"`);

  await advance(api(), clock.id, '2026-05-01T11:30:00.000Z');
  // complete is final: it does not expire; what it left ends (its collection voided), no retry offered.
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'complete', payment_status: 'unpaid', expired_at: null });
  expect((await api().get(`/v1/collections/${mid.collection}`)).body.status).toBe('voided');
  expect((await browser.get(path)).text).not.toContain(`action="${path}/pay"`);
});

test('PSE refused at the bank, then a card on the same page: the session`s collection is paid and the session paid', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const { browser, path, page } = await openSession(t, session.url);
  const started = await browser.post(`${path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(page.text) });
  const bankPath = new URL(started.headers.location).pathname;
  const bank = await browser.get(bankPath);
  await browser.post(bankPath).type('form').send({ decision: 'reject', _csrf: csrfOf(bank.text) });
  const back = await browser.get(path);
  const paid = await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(back.text) });
  expect(paid.status).toBe(303);
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid' });
  expect((await api().get(`/v1/collections/${after.collection}`)).body.status).toBe('paid');
  expect((await api().get(`/v1/charges?collection=${after.collection}`)).body.data.map((c: { status: string }) => c.status).sort()).toEqual(['failed', 'succeeded']);
});

test('PSE abandoned (the bank never answers): the processing timeout fails it, the session is unpaid again, and at expires_at its collection is voided', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-06-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: customer.id, items: [{ price: s.setupFee.id }], expires_at: '2026-06-02T10:00:00.000Z' })).body;
  const { browser, path, page } = await openSession(t, session.url);
  await browser.post(`${path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(page.text) });
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(mid.payment_status).toBe('processing');
  await advance(api(), clock.id, '2026-06-02T11:00:00.000Z');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'unpaid', last_payment: expect.objectContaining({ status: 'declined' }) });
  expect((await api().get(`/v1/collections/${mid.collection}`)).body.status).toBe('voided');
});

test('shipping_cost in mode subscription: shown on the page, charged once on the first collection, not on the renewal', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-07-01T10:00:00.000Z');
  const created = await api().post('/v1/checkout_session', {
    mode: 'subscription',
    customer: customer.id,
    items: [{ price: s.monthly.id }],
    shipping_address_collection: true,
    shipping_address_countries: ['CO'],
    shipping_cost: true,
    shipping_amount: '8000',
  });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ subtotal: '57900.00', total: '57900.00', shipping_cost: true, shipping_amount: '8000.00' });
  const { browser, path, page } = await openSession(t, created.body.url);
  expect(page.text).toContain('Envío');
  expect(page.text).toContain('$ 8.000');
  expect(page.text).toContain('$ 57.900'); // the first payment
  const ship = { ship_address_1: 'Cra 7 # 71-21', ship_city: 'Bogotá', ship_state: 'DC', ship_country: 'CO' };
  const paid = await browser.post(`${path}/pay`).type('form').send({ ...approving, ...ship, _csrf: csrfOf(page.text) });
  expect(paid.status).toBe(303);
  const session = (await api().get(`/v1/checkout_session/${created.body.id}`)).body;
  expect(session).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const first = (await api().get(`/v1/collections/${session.collection}`)).body;
  expect(first).toMatchObject({ status: 'paid', total: '57900.00' });
  expect(first.items.map((i: { name: string; total: string }) => [i.name, i.total])).toContainEqual(['Envío', '8000.00']);
  expect((await api().get(`/v1/subscriptions/${session.subscription}`)).body.status).toBe('active');
  await advance(api(), clock.id, '2026-08-01T11:00:00.000Z');
  const sub = (await api().get(`/v1/subscriptions/${session.subscription}`)).body;
  expect(sub.latest_collection).not.toBe(session.collection);
  expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.total).toBe('49900.00');
});

test('shipping_cost is refused in mode setup', async () => {
  const s = await billingSetup(api());
  const res = await api().post('/v1/checkout_session', { mode: 'setup', customer: s.customer.id, shipping_address_collection: true, shipping_cost: true, shipping_amount: '8000' });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ param: 'shipping_cost' });
});

test('invoicing.enabled on a payment session: the paid collection gets its fiscal invoice after payment (when the account invoices); without it, none', async () => {
  const other = (await t.account('Tienda Factura')).test_key;
  const client = t.as(other);
  const s = await billingSetup(client);
  const open = async (invoicing: object | undefined) => (await client.post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }], ...(invoicing ? { invoicing } : {}) })).body;
  const payOnPage = async (url: string) => {
    const { browser, path, page } = await openSession(t, url);
    expect((await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(page.text) })).status).toBe(303);
  };
  // The account's invoicing is off: nothing is invoiced even when the session asks.
  const off = await open({ enabled: true, invoice_settings: { invoice_cost_center: 'CC-1' } });
  await payOnPage(off.url);
  const offCol = (await client.get(`/v1/collections/${(await client.get(`/v1/checkout_session/${off.id}`)).body.collection}`)).body;
  expect(offCol).toMatchObject({ status: 'paid', invoice: null });

  expect((await client.post('/v1/account/invoicing_settings', { enabled: true })).status).toBe(200);
  const on = await open({ enabled: true, invoice_settings: { invoice_cost_center: 'CC-1' } });
  await payOnPage(on.url);
  const col = (await client.get(`/v1/collections/${(await client.get(`/v1/checkout_session/${on.id}`)).body.collection}`)).body;
  expect(col).toMatchObject({ status: 'paid', invoice: expect.stringMatching(/^inv_/), invoice_settings: expect.objectContaining({ invoice_cost_center: 'CC-1' }) });
  const invoice = (await client.get(`/v1/invoices/${col.invoice}`)).body;
  expect(invoice).toMatchObject({ object: 'invoice', status: 'paid', collection: col.id, customer: s.customer.id, total: col.total, issuance: expect.objectContaining({ status: 'issued' }) });

  const without = await open(undefined);
  await payOnPage(without.url);
  expect((await client.get(`/v1/collections/${(await client.get(`/v1/checkout_session/${without.id}`)).body.collection}`)).body).toMatchObject({ status: 'paid', invoice: null });
});

test('a refusal the page has no words for (the merchant voided the collection of a session whose bank refused) is shown in the page\'s language, never the API\'s English', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const { browser, path, page } = await openSession(t, session.url);
  const started = await browser.post(`${path}/pay`).type('form').send({ method: 'pse', bank_code: '1007', _csrf: csrfOf(page.text) });
  const bankPath = new URL(started.headers.location).pathname;
  const bank = await browser.get(bankPath);
  await browser.post(bankPath).type('form').send({ decision: 'reject', _csrf: csrfOf(bank.text) });
  const declined = await browser.get(path);
  const mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect((await api().post(`/v1/collections/${mid.collection}/void`)).status).toBe(200);
  expect((await browser.post(`${path}/pay`).type('form').send({ ...approving, _csrf: csrfOf(declined.text) })).status).toBe(303);
  const refused = await browser.get(path);
  expect(refused.text).toContain('Esta compra ya no se puede pagar');
  expect(refused.text).not.toMatch(/Cannot pay|its status is/);
  const again = await browser.get(path);
  expect(again.text).toContain('El banco no confirmó el pago');
  expect(again.text).not.toMatch(/Cannot pay|its status is/);
});
