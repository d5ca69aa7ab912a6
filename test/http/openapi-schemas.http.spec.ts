import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The OpenAPI document types what the service returns: every /v1 operation's 2xx answer references a
 * schema describing more than id/object/is_test, and real answers of the service (a walk through
 * every resource) validate against the schema their operation declares (ajv, strict about types,
 * enums, required fields and nullability; resources allow no undeclared property).
 */
let t: TestApp;
let doc: any;
const seen: Array<{ method: string; path: string; status: number; body: unknown }> = [];

type Api = { get(path: string): Promise<any>; post(path: string, body?: object): Promise<any>; delete(path: string): Promise<any> };

function recording(key: string): Api {
  const client = t.as(key);
  const record = (method: string, path: string) => (res: any) => {
    seen.push({ method, path, status: res.status, body: res.body });
    return res;
  };
  return {
    // JSON Lines (the audit export): the body is the text, one JSON value a line.
    get: (path) =>
      (path.startsWith('/v1/audit/export')
        ? client
            .get(path)
            .buffer(true)
            .parse((r: any, done: (e: Error | null, body: unknown) => void) => {
              let text = '';
              r.setEncoding('utf8');
              r.on('data', (c: string) => (text += c));
              r.on('end', () => done(null, text.trimEnd().split('\n').map((l) => JSON.parse(l))));
            })
        : client.get(path)
      ).then(record('get', path)),
    post: (path, body) => client.post(path, body ?? {}).then(record('post', path)),
    delete: (path) => client.delete(path).then(record('delete', path)),
  };
}

/** The operation of the document that serves `path` (its template), or null. */
function operationOf(method: string, path: string): { template: string; op: any } | null {
  const bare = path.split('?')[0];
  for (const [template, methods] of Object.entries<any>(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(bare) && methods[method]) return { template, op: methods[method] };
  }
  return null;
}

function resolve(schema: any): any {
  if (schema?.$ref) return resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
  return schema;
}

beforeAll(async () => {
  t = await startTestApp();
  doc = (await t.http().get('/openapi.json')).body;
  const { test_key: key } = await t.account();
  const api = recording(key);

  // Catalog, customers.
  const s = await billingSetup(api as never);
  await api.get(`/v1/products/${s.product.id}`);
  await api.post(`/v1/products/${s.product.id}/update`, { description: 'Gold', meta_data: { tier: 'gold' } });
  await api.get('/v1/products?limit=2');
  await api.get(`/v1/prices/${s.monthly.id}`);
  await api.get(`/v1/prices?product_id=${s.product.id}`);
  const tiered = await api.post('/v1/prices', {
    product_id: s.product.id,
    type: 'recurring',
    billing_period: 'month',
    billing_interval: 1,
    currency: 'COP',
    pricing_model: 'graduated',
    pricing_tiers: { tiers: [{ up_to: 10, unit_price: '1000' }, { up_to: null, unit_price: '800' }] },
  });
  void tiered;
  const customer = await api.post('/v1/customers', {
    email: `schema.${Date.now()}@example.com`,
    name: 'Ana Gómez',
    document_type: 'CC',
    document_number: '1020304050',
    billing_address: { address_1: 'Cra 7 # 71-21', city: 'Bogotá', state: 'Cundinamarca', country: 'CO' },
  });
  await api.get(`/v1/customers/${customer.body.id}`);
  await api.post(`/v1/customers/${customer.body.id}/update`, { phone: '+573001234567' });
  await api.get('/v1/customers?limit=3');
  // A customer with nothing but an e-mail: its optional fields come back null (name included).
  const bare = await api.post('/v1/customers', { email: `bare.${Date.now()}@example.com` });
  await api.get(`/v1/customers/${bare.body.id}`);
  // An erasure (docs/personal-data.md): its answer, and the erased customer with its placeholders.
  const gone = await api.post('/v1/customers', { email: `gone.${Date.now()}@example.com`, name: 'Ana Borrada', phone: '+573009998877' });
  await api.post(`/v1/customers/${gone.body.id}/erase`);
  await api.get(`/v1/customers/${gone.body.id}`);

  // Subscriptions (charge, approved; collect), their collections, charges, transactions, payment methods.
  const charged = await api.post('/v1/subscriptions', { customer: s.customer.id, collection_method: 'charge', items: [{ price: s.monthly.id }], payment_information: card() });
  const collect = await api.post('/v1/subscriptions', { customer: customer.body.id, collection_method: 'collect', days_until_due: 7, items: [{ price: s.monthly.id, quantity: 2 }, { price: s.setupFee.id }] });
  // Invoiced when the first collection is made, before payment (collect only): first_payment_invoicing create.
  await api.post('/v1/subscriptions', { customer: bare.body.id, collection_method: 'collect', days_until_due: 7, first_payment_invoicing: 'create', items: [{ price: s.monthly.id }] });
  await api.get(`/v1/subscriptions/${charged.body.id}`);
  await api.get('/v1/subscriptions?limit=5');
  await api.get(`/v1/subscriptions/${charged.body.id}/history`);
  await api.post(`/v1/subscriptions/${charged.body.id}/update`, { meta_data: { seat: '1' } });
  const item = await api.post('/v1/subscription_items', { subscription: charged.body.id, price: s.monthly.id, quantity: 3 });
  await api.get(`/v1/subscription_items/${item.body.id}`);
  await api.post(`/v1/subscription_items/${item.body.id}/update`, { quantity: 4 });
  await api.delete(`/v1/subscription_items/${item.body.id}`);
  await api.post(`/v1/subscriptions/${collect.body.id}/pause`, {});
  await api.post(`/v1/subscriptions/${collect.body.id}/resume`, {});
  await api.post(`/v1/subscriptions/${charged.body.id}/cancel`, { cancel_at: 'period_end' });
  await api.get(`/v1/collections/${charged.body.latest_collection}`);
  await api.get(`/v1/collections/${collect.body.latest_collection}`);
  await api.get('/v1/collections?limit=5');
  const charges = (await api.get('/v1/charges?limit=5')).body;
  const transactions = (await api.get('/v1/transactions?limit=5')).body;
  await api.get(`/v1/charges/${charges.data[0].id}`);
  await api.get(`/v1/transactions/${transactions.data[0].id}`);
  const methods = await api.get(`/v1/customers/${s.customer.id}/payment_methods`);
  if (methods.body.data?.[0]) {
    await api.get(`/v1/payment_methods/${methods.body.data[0].id}`);
    await api.post(`/v1/payment_methods/${methods.body.data[0].id}/update`, { meta_data: { label: 'main' } });
  }
  const migrated = await api.post('/v1/payment_methods/migrate', {
    customer: customer.body.id,
    gateway: 'gateway_a',
    type: 'card',
    token: `simtok_approve_abc123${Math.random().toString(36).slice(2, 8)}`,
    card: { brand: 'visa', last4: '1881', exp_month: 7, exp_year: 2031 },
  });
  const oneOff = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  await api.post(`/v1/collections/${oneOff.body.id}/pay`, { payment_information: card() });
  const toVoid = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  await api.post(`/v1/collections/${toVoid.body.id}/void`, {});
  await api.post(`/v1/collections/${oneOff.body.id}/refund`, {});

  // Events.
  const events = await api.get('/v1/events?limit=20');
  await api.get(`/v1/events/${events.body.data[0].id}`);

  // Test clocks.
  const clock = await api.post('/v1/test_helpers/test_clocks', { frozen_time: '2026-11-23T10:00:00.000Z' });
  await api.get(`/v1/test_helpers/test_clocks/${clock.body.id}`);
  await api.get('/v1/test_helpers/test_clocks');
  await api.post(`/v1/test_helpers/test_clocks/${clock.body.id}/advance`, { frozen_time: '2026-11-24T10:00:00.000Z' });
  await api.delete(`/v1/test_helpers/test_clocks/${clock.body.id}`);

  // Coupons, checkout sessions, payment links, storefronts, portal sessions.
  const code = `SAVE${Date.now() % 100000}`;
  const coupon = await api.post('/v1/coupons', { code, percent: '10', max_redemptions: 5 });
  await api.get(`/v1/coupons/${coupon.body.id}`);
  await api.get('/v1/coupons');
  await api.post(`/v1/coupons/${coupon.body.id}/update`, { meta_data: { campaign: 'x' } });
  const session = await api.post('/v1/checkout_session', {
    mode: 'subscription',
    customer: s.customer.id,
    items: [{ price: s.monthly.id }],
    discounts: [{ code, duration_in_collections: 2 }],
    expires_at: new Date(t.clock.now().getTime() + 30 * 60_000).toISOString(),
  });
  await api.get(`/v1/checkout_session/${session.body.id}`);
  await api.get('/v1/checkout_session');
  await api.post(`/v1/checkout_session/${session.body.id}/expire`, {});
  const link = await api.post('/v1/payment_links', { items: [{ price: s.setupFee.id, quantity: 2 }], meta_data: { campaign: 'x' } });
  await api.get(`/v1/payment_links/${link.body.id}`);
  await api.get('/v1/payment_links');
  await api.post(`/v1/payment_links/${link.body.id}/update`, { active: false });
  const store = await api.post('/v1/storefronts', { name: 'Tienda', items: [{ price: s.monthly.id }] });
  await api.get(`/v1/storefronts/${store.body.id}`);
  await api.get('/v1/storefronts');
  await api.post(`/v1/storefronts/${store.body.id}/update`, { name: 'Tienda 2' });
  await api.post('/v1/portal_sessions', { customer: s.customer.id });

  // Webhook endpoints.
  const endpoint = await api.post('/v1/webhook_endpoints', { url: 'https://example.com/hooks', enabled_events: ['subscription.*', 'charge.paid'], meta_data: { team: 'billing' } });
  await api.get(`/v1/webhook_endpoints/${endpoint.body.id}`);
  await api.get('/v1/webhook_endpoints');
  await api.post(`/v1/webhook_endpoints/${endpoint.body.id}`, { description: 'ours' });
  await api.post(`/v1/webhook_endpoints/${endpoint.body.id}/rotate_secret`, {});
  await api.get(`/v1/webhook_endpoints/${endpoint.body.id}/deliveries`);
  await api.post(`/v1/webhook_endpoints/${endpoint.body.id}/resend`, { failed_since: '2026-01-01T00:00:00Z' });
  // A replay (no delivery worker here: it stays running until canceled).
  const replay = await api.post(`/v1/webhook_endpoints/${endpoint.body.id}/replays`, { from: '2026-01-01T00:00:00Z', types: ['subscription.*'] });
  await api.get(`/v1/webhook_endpoints/${endpoint.body.id}/replays`);
  await api.get(`/v1/webhook_endpoints/${endpoint.body.id}/replays/${replay.body.id}`);
  await api.post(`/v1/webhook_endpoints/${endpoint.body.id}/replays/${replay.body.id}/cancel`);
  await api.post(`/v1/test_helpers/webhook_endpoints/${endpoint.body.id}/send_test_event`, {});

  // Invoices and credit notes, invoicing settings, account settings, country parameters, outbox.
  await api.get('/v1/account/invoicing_settings');
  await api.post('/v1/account/invoicing_settings', { enabled: true, numbering: { prefix: 'FE', next_number: 990, range_end: 5000 }, default_retentions: { reteica: '9.66' } });
  await api.post('/v1/test_helpers/invoicing_provider', { fail_next: 0 });
  const invoice = await api.post('/v1/invoices', { customer: customer.body.id, number: `F-${Date.now() % 100000}`, issue_date: '2026-11-01', due_date: '2026-12-01', subtotal: '100000', tax_total: '0', total: '100000' });
  await api.get(`/v1/invoices/${invoice.body.id}`);
  await api.get('/v1/invoices');
  await api.get(`/v1/invoices/${invoice.body.id}/payments`);
  const note = await api.post(`/v1/invoices/${invoice.body.id}/credit_notes`, { amount: '19000', reason: 'Descuento comercial' });
  await api.get(`/v1/invoices/${invoice.body.id}/credit_notes`);
  if (note.body.id) await api.get(`/v1/credit_notes/${note.body.id}`);
  // Part of it (the credit note is voided below, while its collection is still open).
  await api.post(`/v1/invoices/${invoice.body.id}/pay`, { amount: '50000' });
  await api.post(`/v1/customers/${customer.body.id}/register_invoices_payment`, { amount: '1000' });
  // Shipping, migration, collection operations, deletions, account settings.
  await api.post(`/v1/subscriptions/${collect.body.id}/shipping`, {
    name: 'Ana Gómez',
    phone: '+57 300 000 0000',
    address: { address_1: 'Calle 1 # 2-3', city: 'Bogotá', state: 'Cundinamarca', country: 'co' },
  });
  await api.post(`/v1/subscriptions/${collect.body.id}/shipping_item`, { description: 'Envío nacional', amount: '12000' });
  await api.post('/v1/subscriptions/migrate', { customer: s.customer.id, items: [{ price: s.monthly.id }], next_renewal_date: '2026-12-15T10:00:00.000Z', meta_data: { legacy_id: 'L-77' } });
  const open = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  await api.post(`/v1/collections/${open.body.id}/update/items`, { items: [{ price: s.setupFee.id, quantity: 3 }] });
  await api.post(`/v1/collections/${open.body.id}/send`, {});
  await api.post(`/v1/collections/${open.body.id}/mark_uncollectible`, {});
  const extra = await api.post('/v1/products', { name: 'To delete' });
  const extraPrice = await api.post('/v1/prices', { product_id: extra.body.id, type: 'one_time', unit_price: '5000' });
  await api.delete(`/v1/prices/${extraPrice.body.id}`);
  await api.delete(`/v1/products/${extra.body.id}`);
  await api.delete(`/v1/coupons/${coupon.body.id}`);
  await api.delete(`/v1/webhook_endpoints/${endpoint.body.id}`);
  if (note.body.id) await api.post(`/v1/credit_notes/${note.body.id}/void`, {});
  await api.post('/v1/account/retry_policy', { retry_days: [1, 3, 5], final_days: 45 });
  await api.post('/v1/account/gateways', { gateway: 'gateway_b' });
  await api.get('/v1/account/gateways');
  await api.get('/v1/account/retry_policy');
  await api.get('/v1/country_parameters/CO');
  await api.get('/v1/test_helpers/outbox');

  // The operations that only change something already walked.
  await api.post(`/v1/prices/${s.monthly.id}/update`, { meta_data: { plan: 'monthly' } });
  await api.post(`/v1/payment_methods/${migrated.body.id}/delete`, {});
  await api.delete('/v1/account/gateways/gateway_b');
  const discounted = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  const withDiscounts = await api.post(`/v1/collections/${discounted.body.id}/update/discounts`, { discounts: [{ code: 'TEN', percent: '10' }, { code: 'ONEK', amount: '1000' }] });
  await api.delete(`/v1/collections/${discounted.body.id}/discounts/${withDiscounts.body.discounts[0].id}`);
  const subDiscounts = await api.post(`/v1/subscriptions/${collect.body.id}/update`, { discounts: [{ code: 'WELCOME', percent: '10', duration_in_collections: 3 }] });
  await api.delete(`/v1/subscriptions/${collect.body.id}/discounts/${subDiscounts.body.discounts[0].id}`);
  // Asynchronous payments (pse) settled and abandoned, a payment made on the hosted page, then refunded elsewhere.
  const pse = { payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' } };
  const settled = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  await api.post(`/v1/collections/${settled.body.id}/pay`, pse);
  await api.post(`/v1/test_helpers/collections/${settled.body.id}/settle`, {});
  const abandoned = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  await api.post(`/v1/collections/${abandoned.body.id}/pay`, pse);
  await api.post(`/v1/test_helpers/collections/${abandoned.body.id}/fail`, {});
  const hosted = await api.post('/v1/collections', { customer: customer.body.id, items: [{ price: s.setupFee.id }], collection_method: 'collect', days_until_due: 7 });
  await api.post(`/v1/test_helpers/collections/${hosted.body.id}/customer_payment`, {});
  await api.post(`/v1/collections/${hosted.body.id}/mark_refunded`, { reason: 'returned in cash' });
  // An invoice's collection paid in part (its balance in a second collection whose total changes), and a voided invoice.
  const owed = await api.post('/v1/invoices', { customer: customer.body.id, number: `P-${Date.now() % 100000}`, issue_date: '2026-11-01', due_date: '2026-12-10', subtotal: '100000', tax_total: '0', total: '100000' });
  const part = await api.post(`/v1/collections/${owed.body.collection}/partial_payment`, { amount: '20000', create_collection_with_balance: true, days_until_due: 10 });
  await api.post(`/v1/collections/${part.body.partial_payment.balance_collection}/update/total`, { total: '30000' });
  const voidable = await api.post('/v1/invoices', { customer: customer.body.id, number: `V-${Date.now() % 100000}`, issue_date: '2026-11-01', due_date: '2026-12-10', subtotal: '5000', tax_total: '0', total: '5000' });
  await api.post(`/v1/invoices/${voidable.body.id}/void`, {});
  // Revenue analytics over all of the above: every report, and the movements it made.
  for (const report of ['summary', 'mrr', 'subscriptions', 'customers', 'churn', 'net_revenue', 'at_risk', 'renewals']) await api.get(`/v1/reports/${report}?interval=week`);
  await api.get('/v1/reports/mrr_movements?limit=5');
  // The audit log (docs/audit.md): the key, a head signed before and one after a change, proofs.
  await api.get('/v1/audit/public_key');
  const before = (await api.get('/v1/audit/head?fresh=true')).body;
  await api.post('/v1/customers', { email: `audit.${Date.now()}@example.com` });
  await api.get('/v1/audit/head?fresh=true');
  await api.get('/v1/audit/head');
  await api.get(`/v1/audit/proof?event=${events.body.data[0].id}`);
  await api.get(`/v1/audit/consistency?from_size=${before.size}`);
  await api.get(`/v1/audit/export?scope=customer&id=${customer.body.id}`);
}, 180_000);

afterAll(() => t?.close());

test('every /v1 operation answers 2xx with a schema that describes its resource (more than id, object and is_test)', () => {
  const thin: string[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries<any>(methods)) {
      const ok = Object.entries<any>(op.responses).find(([code]) => code.startsWith('2'));
      // JSON Lines (the audit export): the schema of one line.
      const content = ok?.[1]?.content;
      let schema = resolve((content?.['application/json'] ?? content?.['application/x-ndjson'])?.schema);
      // A list: its items; a deletion: its own fields.
      if (schema?.properties?.object?.enum?.[0] === 'list') schema = resolve(schema.properties.data.items);
      const fields = Object.keys(schema?.properties ?? {}).filter((f) => !['id', 'object', 'is_test'].includes(f));
      if (fields.length === 0) thin.push(`${method.toUpperCase()} ${path}`);
      for (const code of ['400', '401', '500']) if (!op.responses[code]?.content) thin.push(`${method.toUpperCase()} ${path}: no ${code}`);
    }
  }
  expect(thin).toEqual([]);
});

test('real answers of the service validate against the schema their operation declares', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormatsModule as unknown as { default: (a: Ajv) => void }).default(ajv);
  // OpenAPI 3.0's `nullable` ajv knows. Stricter than the document: an object schema that lists its
  // fields and does not say otherwise refuses fields it does not list (the document leaves them open
  // for clients), so every field the service returns must be described.
  const components = structuredClone(doc.components);
  const closeObjects = (schema: any): void => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.properties && !('additionalProperties' in schema)) schema.additionalProperties = false;
    for (const value of Object.values(schema)) {
      if (Array.isArray(value)) value.forEach(closeObjects);
      else closeObjects(value);
    }
  };
  for (const schema of Object.values(components.schemas)) closeObjects(schema);
  ajv.addSchema({ $id: 'openapi', components }, 'openapi');
  const failures: string[] = [];
  const covered = new Set<string>();
  for (const { method, path, status, body } of seen) {
    if (status < 200 || status >= 300) {
      failures.push(`${method.toUpperCase()} ${path}: the walk itself failed with ${status} ${JSON.stringify(body).slice(0, 200)}`);
      continue;
    }
    const found = operationOf(method, path);
    if (!found) {
      failures.push(`${method.toUpperCase()} ${path}: no operation in the document`);
      continue;
    }
    const ok = Object.entries<any>(found.op.responses).find(([code]) => code.startsWith('2'))!;
    const lines = ok[1].content['application/x-ndjson'];
    const schema = (lines ?? ok[1].content['application/json']).schema;
    const validate = ajv.compile({ $ref: `openapi#/components/schemas/${schema.$ref.replace('#/components/schemas/', '')}` });
    // JSON Lines: every line against the line's schema.
    for (const value of lines ? (body as unknown[]) : [body]) {
      if (!validate(value)) {
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
        failures.push(`${method.toUpperCase()} ${found.template}: ${errors.join('; ')}`);
      }
    }
    covered.add(`${method} ${found.template}`);
  }
  expect(failures).toEqual([]);
  // The walk reaches every /v1 operation of the document.
  const operations = Object.entries<any>(doc.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
  expect(operations.filter((o) => !covered.has(o))).toEqual([]);
  expect(covered.size).toBe(operations.length);
});
