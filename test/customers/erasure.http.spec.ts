import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '#test/support/test-app.js';
import { expectCheckoutSessionSameAfterRebuild } from '#test/support/rebuild-checks.js';
import { billingSetup, card } from '#test/support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf } from '#test/support/lifecycle.js';
import { history } from '#test/support/subscription-helpers.js';
import { WebhookReceiver } from '#test/support/webhook-receiver.js';
import { signInMember } from '#test/support/dashboard-member.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { runCli } from '#cli/cli.js';
import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { Scheduler } from '#scheduling/scheduler.js';
import { newClock } from '#test/support/lifecycle.js';
import { FiscalBuyerPurge } from '#customers/personal-data/fiscal-purge.js';

/**
 * Issue 33 §3, crypto-shredding (docs/personal-data.md): a customer's personal data is never in the
 * event store's files in clear; after `POST /v1/customers/{id}/erase` nothing the service answers or
 * sends shows it (placeholders instead), the customer can no longer be charged or subscribed, amounts
 * and ids stay, and rebuilding the read models gives the same documents as before the rebuild.
 */
let t: TestApp;
let key: string;
let account: string;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  t = await startTestApp({ webhooks: true, env: { WEBHOOK_POLL_MS: '50' } });
  const created = await t.account();
  key = created.test_key;
  account = created.id;
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t?.close();
});

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const stamp = Date.now().toString(36);
const PERSONAL = {
  email: `ana.sofia.${stamp}@correo-personal.co`,
  name: `Ana Sofía Restrepo ${stamp}`,
  phone: '+573104445566',
  document_number: '43987654321',
  address_1: 'Carrera 43A # 1 Sur-100',
  shipping_name: `Ana S. Restrepo Envíos ${stamp}`,
  shipping_address: 'Calle 10 Sur # 50-28',
  meta: `crm-ana-${stamp}`,
};
const secrets = () => Object.values(PERSONAL);
const leaks = (text: string) => secrets().filter((s) => text.includes(s));

function bytesOf(dir: string, match: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...bytesOf(path, match));
    else if (match(name)) out.push(readFileSync(path).toString('latin1'));
  }
  return out;
}

async function ok(res: { status: number; body: any; text: string }, what: string) {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
}

test('erasure: placeholders everywhere, no charge, no new subscription, ids and amounts kept, the event store never held the plaintext, a rebuild changes nothing', async () => {
  const r = await new WebhookReceiver().up();
  receivers.push(r);
  const endpoint = await ok(await api().post('/v1/webhook_endpoints', { url: r.url, enabled_events: ['customer.*', 'subscription.*'] }), 'endpoint');
  r.secrets = [endpoint.body.secret];

  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  await ok(
    await api().post(`/v1/customers/${customer.id}/update`, {
      email: PERSONAL.email,
      name: PERSONAL.name,
      phone: PERSONAL.phone,
      document_type: 'CC',
      document_number: PERSONAL.document_number,
      billing_address: { address_1: PERSONAL.address_1, city: 'Medellín', state: 'Antioquia', country: 'CO' },
      meta_data: { crm: PERSONAL.meta },
    }),
    'update',
  );
  const sub = (await ok(await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() }), 'subscription')).body;
  await ok(
    await api().post(`/v1/subscriptions/${sub.id}/shipping`, { name: PERSONAL.shipping_name, phone: PERSONAL.phone, address: { address_1: PERSONAL.shipping_address, city: 'Medellín', state: 'Antioquia', country: 'CO' } }),
    'shipping',
  );
  const before = {
    customer: (await api().get(`/v1/customers/${customer.id}`)).body,
    collections: await collectionsOf(api(), sub.id),
    feed: (await api().get(`/v1/events?customer=${customer.id}&limit=100`)).body.data as any[],
  };
  expect(before.customer).toMatchObject({ name: PERSONAL.name, email: PERSONAL.email });
  expect(before.collections).toHaveLength(1);

  // The event store's files never held the plaintext (the read models do, until the erasure).
  const eventFiles = bytesOf(t.dataDir, (n) => /event/i.test(n) && !/read/i.test(n));
  expect(eventFiles.length).toBeGreaterThan(0);
  for (const bytes of eventFiles) expect(leaks(bytes)).toEqual([]);

  // The erasure.
  const erased = await ok(await api().post(`/v1/customers/${customer.id}/erase`), 'erase');
  expect(erased.body).toEqual({
    object: 'customer_erasure',
    id: customer.id,
    erased_at: expect.any(String),
    subscriptions_canceled: [sub.id],
    payment_methods_removed: [sub.payment_method],
    fiscal_retention: { kept: false, invoices: [], kept_until: null, basis: null },
  });
  // A second erasure changes nothing and says so.
  expect((await ok(await api().post(`/v1/customers/${customer.id}/erase`), 'erase again')).body).toMatchObject({ subscriptions_canceled: [], payment_methods_removed: [] });

  const got = (await api().get(`/v1/customers/${customer.id}`)).body;
  expect(got).toMatchObject({
    id: customer.id,
    email: '[erased]',
    name: '[erased]',
    phone: '[erased]',
    document_type: 'CC',
    document_number: '[erased]',
    billing_address: null,
    meta_data: {},
    erased_at: erased.body.erased_at,
    test_clock: clock.id,
  });
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'canceled', shipping: null });

  // Everything the service answers about it now: no personal value anywhere.
  const shippingEvent = (await history(api(), sub.id, 100)).find((e) => e.type === 'subscription.updated');
  expect(shippingEvent).toBeDefined();
  const feed = (await api().get(`/v1/events?customer=${customer.id}&limit=100`)).body;
  expect(feed.data.map((e: any) => e.type)).toEqual(expect.arrayContaining(['customer.created', 'customer.updated', 'customer.erased', 'subscription.created', 'subscription.canceled']));
  const { visitor } = await signInMember(t, account);
  const answers = [
    JSON.stringify(got),
    JSON.stringify(feed),
    JSON.stringify((await api().get(`/v1/subscriptions/${sub.id}/history?limit=100`)).body),
    JSON.stringify((await api().get(`/v1/subscriptions/${sub.id}?as_of=${shippingEvent!.id}`)).body),
    JSON.stringify((await api().get(`/v1/customers?limit=100`)).body),
    JSON.stringify((await api().get(`/v1/test_helpers/outbox?limit=100`)).body),
    (await visitor.get(`/dashboard/customers/${customer.id}`)).text,
  ];
  expect((await api().get(`/v1/subscriptions/${sub.id}?as_of=${shippingEvent!.id}`)).body).toMatchObject({ shipping: null, status: 'active' });
  for (const text of answers) expect(leaks(text)).toEqual([]);
  expect(answers.join('\n')).toContain('[erased]');

  // A webhook re-send of the customer's first event carries the placeholders.
  const first = feed.data.find((e: any) => e.type === 'customer.created');
  const deliveredBefore = r.received.length;
  await ok(await api().post(`/v1/webhook_endpoints/${endpoint.body.id}/resend`, { event: first.id }), 'resend');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !r.received.slice(deliveredBefore).some((x: any) => x.body?.id === first.id)) await new Promise((ok) => setTimeout(ok, 50));
  const resent = r.received.slice(deliveredBefore).find((x: any) => x.body?.id === first.id) as any;
  expect(resent?.body?.data?.object).toMatchObject({ id: customer.id, email: '[erased]', name: '[erased]' });
  expect(leaks(JSON.stringify(resent.body))).toEqual([]);

  // It can no longer be charged nor subscribed; ids and amounts stay.
  const refused = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
  expect(refused.status).toBe(409);
  expect(refused.body.error).toMatchObject({ code: 'customer_erased', param: 'customer' });
  const collection = await api().post('/v1/collections', { customer: customer.id, collection_method: 'charge', items: [{ price: s.monthly.id }] });
  expect(collection.status).toBe(409);
  expect(collection.body.error.code).toBe('customer_erased');
  await advance(api(), clock.id, '2026-03-15T10:00:00.000Z');
  const after = await collectionsOf(api(), sub.id);
  expect(after.map((c) => [c.id, c.total, c.currency])).toEqual(before.collections.map((c) => [c.id, c.total, c.currency]));
  expect((await api().get(`/v1/customers/${customer.id}`)).body.id).toBe(customer.id);
  expect((await api().post(`/v1/customers/${customer.id}/update`, { name: 'Otra' })).body.error?.code).toBe('customer_erased');

  // A rebuild of the projections gives the same documents as before it.
  const reads = t.app.get<ReadStore>(READ_STORE);
  const snapshot = async () => ({
    customer: await reads.get('customers', customer.id),
    subscription: await reads.get('subscriptions', sub.id),
    feed: await reads.find('events', { where: { _account: account, is_test: true, _customer: customer.id }, orderBy: { field: '_seq', direction: 'asc' }, limit: 500 }),
    api: [(await api().get(`/v1/customers/${customer.id}`)).body, (await api().get(`/v1/events?customer=${customer.id}&limit=100`)).body],
  });
  const beforeRebuild = await snapshot();
  expect(beforeRebuild.feed.length).toBeGreaterThan(3);
  await t.app.get(ProjectionEngine).rebuild();
  expect(await snapshot()).toEqual(beforeRebuild);

  // Its e-mail is free again: the same person may become a customer anew (a new id, nothing of the old one).
  const anew = await ok(await api().post('/v1/customers', { email: PERSONAL.email, name: PERSONAL.name }), 'the same e-mail again');
  expect(anew.body.id).not.toBe(customer.id);
}, 120_000);

test('dashboard: owners and admins erase from the customer page after typing its id; other roles are refused', async () => {
  const c = (await ok(await api().post('/v1/customers', { email: `pagina.${stamp}@correo-personal.co`, name: `Beatriz Página ${stamp}`, phone: '+573001112233' }), 'customer')).body;
  const support = (await signInMember(t, account, 'support')).visitor;
  expect((await support.get(`/dashboard/customers/${c.id}`)).text).not.toContain(`/dashboard/customers/${c.id}/erase`);
  const refused = await support.post(`/dashboard/customers/${c.id}/erase`, { confirm: c.id });
  expect(refused.status).toBe(403);

  const admin = (await signInMember(t, account, 'admin')).visitor;
  const page = await admin.get(`/dashboard/customers/${c.id}`);
  expect(page.text).toContain(`/dashboard/customers/${c.id}/erase`);
  // A wrong confirmation changes nothing and says why, beside the field.
  const wrong = await admin.post(`/dashboard/customers/${c.id}/erase`, { confirm: 'cus_other' });
  expect(wrong.status).toBe(400);
  expect((await api().get(`/v1/customers/${c.id}`)).body.name).toBe(`Beatriz Página ${stamp}`);

  const done = await admin.post(`/dashboard/customers/${c.id}/erase`, { confirm: c.id });
  expect(done.status).toBe(303);
  const after = await admin.get(`/dashboard/customers/${c.id}`);
  expect(after.status).toBe(200);
  expect(after.text).not.toContain('Beatriz');
  expect(after.text).not.toContain(`pagina.${stamp}`);
  expect(after.text).not.toContain(`/dashboard/customers/${c.id}/erase`);
  expect((await api().get(`/v1/customers/${c.id}`)).body).toMatchObject({ name: '[erased]', email: '[erased]', phone: '[erased]', erased_at: expect.any(String) });
}, 60_000);

test('cli: customers erase --account --customer, with the service stopped; the restarted service shows the placeholders', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'erase-cli-'));
  const first = await startTestApp({ dataDir, embedded: true });
  const acct = await first.account();
  const c = (await first.as(acct.test_key).post('/v1/customers', { email: `cli.${stamp}@correo-personal.co`, name: `Carla Consola ${stamp}` })).body;
  await first.close();

  const lines: string[] = [];
  expect(await runCli(['customers', 'erase', '--account', acct.id, '--customer', c.id, '--json'], { out: (l) => lines.push(l) }, { DATA_DIR: dataDir })).toBe(0);
  expect(JSON.parse(lines.join('\n'))).toMatchObject({ object: 'customer_erasure', id: c.id, subscriptions_canceled: [], payment_methods_removed: [] });
  const missing: string[] = [];
  await expect(runCli(['customers', 'erase', '--account', acct.id, '--customer', 'cus_nobody'], { out: (l) => missing.push(l) }, { DATA_DIR: dataDir })).rejects.toThrow(/No such customer/);

  // The audit chain hashes what is stored: an erasure leaves it valid.
  const verified: string[] = [];
  expect(await runCli(['audit', 'verify', '--account', acct.id], { out: (l) => verified.push(l) }, { DATA_DIR: dataDir })).toBe(0);
  expect(verified.join('\n')).toMatch(/match/);
  const again = await startTestApp({ dataDir, embedded: true });
  try {
    const got = (await again.as(acct.test_key).get(`/v1/customers/${c.id}`)).body;
    expect(got).toMatchObject({ id: c.id, name: '[erased]', email: '[erased]', erased_at: expect.any(String) });
    expect(JSON.stringify((await again.as(acct.test_key).get(`/v1/events?customer=${c.id}`)).body)).not.toContain('Carla');
  } finally {
    await again.close();
  }
}, 60_000);

test('tax law: the buyer identification of an issued invoice is kept apart (its fiscal document still shows it), the API shows placeholders', async () => {
  const acct = await t.account('Fiscal merchant');
  const fiscal = () => t.as(acct.test_key);
  expect((await fiscal().post('/v1/account/invoicing_settings', { enabled: true })).body.enabled).toBe(true);
  const buyer = { name: `Comercializadora Andina ${stamp} S.A.S.`, document_number: '900123456' };
  const c = (
    await ok(
      await fiscal().post('/v1/customers', {
        email: `fiscal.${stamp}@empresa-andina.co`,
        name: buyer.name,
        document_type: 'NIT',
        document_number: buyer.document_number,
        billing_address: { address_1: 'Cl 10 # 43-12', city: 'Medellín', state: 'Antioquia', country: 'CO' },
      }),
      'customer',
    )
  ).body;
  const product = (await fiscal().post('/v1/products', { name: 'Plan Empresarial', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await fiscal().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '119000', currency: 'COP' })).body;
  const sub = (await ok(await fiscal().post('/v1/subscriptions', { customer: c.id, items: [{ price: price.id }], payment_information: card(), first_payment_invoicing: 'after' }), 'subscription')).body;
  const [invoice] = (await fiscal().get(`/v1/invoices?customer=${c.id}`)).body.data;
  expect(invoice).toMatchObject({ issuance: { status: 'issued' } });

  const erased = (await ok(await fiscal().post(`/v1/customers/${c.id}/erase`), 'erase')).body;
  expect(erased).toMatchObject({ subscriptions_canceled: [sub.id], fiscal_retention: { kept: true, invoices: [invoice.id], kept_until: expect.any(String), basis: expect.stringMatching(/Estatuto Tributario art\. 632/) } });
  expect(Date.parse(erased.fiscal_retention.kept_until) - Date.parse(invoice.fiscal.issued_at)).toBeGreaterThanOrEqual(5 * 365 * 24 * 3600 * 1000);
  expect((await fiscal().get(`/v1/customers/${c.id}`)).body).toMatchObject({ name: '[erased]', document_number: '[erased]' });
  expect(JSON.stringify((await fiscal().get(`/v1/events?customer=${c.id}&limit=100`)).body)).not.toContain(buyer.name);

  // The issued electronic invoice still names its buyer (kept for tax law), and nothing else does.
  const xml = await t.http().get(new URL(invoice.fiscal.xml_url).pathname);
  expect(xml.status).toBe(200);
  expect(xml.text).toContain(buyer.name);
  expect(xml.text).toContain(buyer.document_number);
}, 60_000);

/** The text of a PDF's pages, as a reader extracts it. */
async function pdfText(data: Buffer): Promise<string> {
  const standardFontDataUrl = fileURLToPath(new URL('../../node_modules/pdfjs-dist/standard_fonts/', import.meta.url));
  const pdf = await getDocument({ data: new Uint8Array(data), standardFontDataUrl, useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let i = 1; i <= pdf.numPages; i++) pages.push((await (await pdf.getPage(i)).getTextContent()).items.map((item) => ('str' in item ? item.str : '')).join(' '));
  await pdf.destroy();
  return pages.join('\n').replace(/\s+/g, ' ');
}

test('tax law: the kept buyer identification is purged at kept_until by the scheduler (on the customer\'s test clock); its fiscal documents then show the placeholder', async () => {
  const acct = await t.account('Fiscal purge merchant');
  const fiscal = () => t.as(acct.test_key);
  expect((await fiscal().post('/v1/account/invoicing_settings', { enabled: true })).body.enabled).toBe(true);
  const clock = await newClock(fiscal(), START);
  const buyer = { name: `Distribuidora Caribe ${stamp} S.A.S.`, document_number: '901234567', email: `purga.${stamp}@caribe.co` };
  const c = (await ok(await fiscal().post('/v1/customers', { email: buyer.email, name: buyer.name, document_type: 'NIT', document_number: buyer.document_number, test_clock: clock.id }), 'customer')).body;
  const product = (await fiscal().post('/v1/products', { name: 'Plan Caribe', invoice_settings: { invoice_tax_id: '01', invoice_tax_percentage: '19' } })).body;
  const price = (await fiscal().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '119000', currency: 'COP' })).body;
  await ok(await fiscal().post('/v1/subscriptions', { customer: c.id, items: [{ price: price.id }], payment_information: card(), first_payment_invoicing: 'after' }), 'subscription');
  const [invoice] = (await fiscal().get(`/v1/invoices?customer=${c.id}`)).body.data;
  expect(invoice).toMatchObject({ issuance: { status: 'issued' } });
  const erased = (await ok(await fiscal().post(`/v1/customers/${c.id}/erase`), 'erase')).body;
  const keptUntil: string = erased.fiscal_retention.kept_until;
  expect(erased.fiscal_retention).toMatchObject({ kept: true, invoices: [invoice.id] });

  const reads = t.app.get<ReadStore>(READ_STORE);
  const kept = (await reads.get<Record<string, unknown>>('fiscal_buyers', c.id))!;
  expect(kept).toMatchObject({ _account: acct.id, _clock: clock.id, _due_at: keptUntil, _due_kind: 'fiscal_purge' });
  // A document kept before the purge existed (no deadline fields) is given them at start.
  const { _account, _clock, _due_at, _due_kind, ...older } = kept;
  expect(await reads.swap('fiscal_buyers', c.id, { _due_at: keptUntil }, older)).toBe(true);
  expect(await t.app.get(FiscalBuyerPurge).backfill()).toBe(1);
  expect(await reads.get('fiscal_buyers', c.id)).toEqual(kept);

  const documents = async () => ({
    xml: (await t.http().get(new URL(invoice.fiscal.xml_url).pathname)).text,
    pdf: await pdfText((await t.http().get(new URL(invoice.fiscal.pdf_url).pathname).buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    })).body as Buffer),
  });
  const scheduler = t.app.get(Scheduler);
  // Just before kept_until: still kept, the documents still name the buyer.
  await scheduler.runDue({ clock: clock.id }, new Date(Date.parse(keptUntil) - 1));
  expect(await reads.get('fiscal_buyers', c.id)).not.toBeNull();
  const before = await documents();
  for (const text of [before.xml, before.pdf]) {
    expect(text).toContain(buyer.name);
    expect(text).toContain(buyer.document_number);
  }
  // At kept_until: purged; the documents (still served, with their numbers and amounts) name nobody.
  expect((await scheduler.runDue({ clock: clock.id }, new Date(keptUntil))).ran).toBeGreaterThanOrEqual(1);
  expect(await reads.get('fiscal_buyers', c.id)).toBeNull();
  const after = await documents();
  expect(after.xml).toContain(invoice.number);
  expect(after.pdf).toContain(invoice.number);
  for (const text of [after.xml, after.pdf]) {
    for (const v of Object.values(buyer)) expect(text).not.toContain(v);
    expect(text).toContain('[erased]');
  }
  // Erasing again keeps nothing anew (the fields read as placeholders now).
  expect((await ok(await fiscal().post(`/v1/customers/${c.id}/erase`), 'erase again')).body.fiscal_retention).toMatchObject({ kept: false });
  expect(await reads.get('fiscal_buyers', c.id)).toBeNull();
}, 60_000);

test('hosted checkout: the custom field values and the shipping address a buyer entered are encrypted under the session, and erased with the customer', async () => {
  const s = await billingSetup(api());
  const pages = t.app.get(HostedCheckout);
  const req = { ip_address: '203.0.113.7', user_agent: `Mozilla/5.0 (Prueba ${stamp})` };
  const entered = { dedication: `Para Lucía Gómez ${stamp}`, street: `Diagonal 75B # 2A-${stamp}`, user_agent: req.user_agent, ip: req.ip_address };
  const session = (
    await ok(
      await api().post('/v1/checkout_session', {
        mode: 'payment',
        customer: s.customer.id,
        items: [{ price: s.setupFee.id }],
        custom_fields: [{ key: 'dedicatoria', label: 'Dedicatoria', required: true }],
        shipping_address_collection: true,
        shipping_address_countries: ['CO'],
        consent: { terms_of_service: true },
      }),
      'session',
    )
  ).body;
  const tk = session.url.split('#')[1];
  await pages.saveDetails(tk, { consent: { terms_of_service: true }, shipping_address: { address_1: entered.street, city: 'Medellín', state: 'Antioquia', country: 'CO' } }, req);
  expect((await pages.pay(tk, { payment_information: card(), custom_fields: { dedicatoria: entered.dedication } }, req)).status).toBe('complete');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ custom_fields: [expect.objectContaining({ value: entered.dedication })], consent: { ip_address: req.ip_address, user_agent: req.user_agent } });
  for (const bytes of bytesOf(t.dataDir, (n) => /event/i.test(n) && !/read/i.test(n))) for (const v of Object.values(entered)) expect(bytes.includes(v)).toBe(false);

  await ok(await api().post(`/v1/customers/${s.customer.id}/erase`), 'erase');
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ id: session.id, status: 'complete', custom_fields: [expect.objectContaining({ key: 'dedicatoria', value: '[erased]' })], shipping_address: null, consent: { terms_of_service: true, ip_address: '[erased]', user_agent: '[erased]', accepted_at: expect.any(String) } });
  const texts = [JSON.stringify(after), JSON.stringify((await api().get(`/v1/events?limit=100&type=checkout_session.updated`)).body), JSON.stringify((await api().get(`/v1/events?customer=${s.customer.id}&limit=100`)).body)];
  for (const text of texts) for (const v of Object.values(entered)) expect(text.includes(v)).toBe(false);
  // A new checkout for it is refused.
  expect((await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body.error?.code).toBe('customer_erased');

  await expectCheckoutSessionSameAfterRebuild(t, account, session.id);
}, 60_000);

test('Idempotency-Key: a stored answer holds the customer\'s data encrypted; after the erasure a replay does not return it (409 idempotency_response_erased, naming the object)', async () => {
  const person = { email: `replay.${stamp}@correo-personal.co`, name: `Rodrigo Repetición ${stamp}` };
  const headers = { 'Idempotency-Key': `create-${stamp}` };
  const created = await ok(await api().post('/v1/customers', person, headers), 'create');
  const replay = await api().post('/v1/customers', person, headers);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.body).toMatchObject({ id: created.body.id, name: person.name, email: person.email });
  // The stored answer is in the event store's files as ciphertext only.
  for (const bytes of bytesOf(t.dataDir, (n) => /event/i.test(n) && !/read/i.test(n))) {
    expect(bytes.includes(person.name)).toBe(false);
    expect(bytes.includes(person.email)).toBe(false);
  }
  const updateHeaders = { 'Idempotency-Key': `update-${stamp}` };
  await ok(await api().post(`/v1/customers/${created.body.id}/update`, { phone: '+573009998877' }, updateHeaders), 'update');

  await ok(await api().post(`/v1/customers/${created.body.id}/erase`), 'erase');
  for (const [h, path] of [[headers, '/v1/customers'], [updateHeaders, `/v1/customers/${created.body.id}/update`]] as const) {
    const after = await api().post(path, path === '/v1/customers' ? person : { phone: '+573009998877' }, h);
    expect(after.status).toBe(409);
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(after.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_response_erased', resource: { object: 'customer', id: created.body.id } });
    expect(after.text.includes(person.name)).toBe(false);
    expect(after.text.includes(person.email)).toBe(false);
    expect(after.text.includes('+573009998877')).toBe(false);
  }
  // The same body under the same key made nothing new: still one customer of that id, erased.
  expect((await api().get(`/v1/customers/${created.body.id}`)).body).toMatchObject({ name: '[erased]', erased_at: expect.any(String) });
}, 60_000);
