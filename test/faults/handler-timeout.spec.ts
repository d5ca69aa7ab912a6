import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { inStore } from './support/crash-harness.js';

/**
 * The per-request handler timeout (HANDLER_TIMEOUT_MS, here 500 ms): a request whose handler is slow
 * (the invoicing simulator told to answer after 1.5 s, called while a subscription is created) gets
 * 503 `handler_timeout` in the API's error shape on time; the command is not cut in half — it finishes
 * and its outcome is recorded under the Idempotency-Key, so a retry with the key gets that outcome,
 * and exactly one subscription and one invoice exist.
 */
let t: TestApp;
afterAll(() => t?.close());

test('a slow handler: 503 handler_timeout on time, the command finishes, a retry with its key gets its result; nothing twice', async () => {
  t = await startTestApp({ env: { HANDLER_TIMEOUT_MS: '500' }, embedded: true });
  const api = t.as((await t.account()).test_key);
  expect((await api.post('/v1/account/invoicing_settings', { enabled: true })).status).toBe(200);
  const { customer, monthly } = await billingSetup(api);
  expect((await api.post('/v1/test_helpers/invoicing_provider', { delay_ms: 1500 })).body).toMatchObject({ delay_ms: 1500 });
  const body = { customer: customer.id, items: [{ price: monthly.id }], payment_information: card(), first_payment_invoicing: 'after' };

  const started = Date.now();
  const slow = await api.post('/v1/subscriptions', body, { 'Idempotency-Key': 'slow-1' });
  const took = Date.now() - started;
  expect(slow.status).toBe(503);
  expect(slow.body.error).toMatchObject({ type: 'api_error', code: 'handler_timeout', param: null });
  expect(slow.body.error.message).toMatch(/retry with the same Idempotency-Key/);
  expect(slow.headers['retry-after']).toBe('1');
  expect(took).toBeLessThan(1400);

  // While the first still runs, a retry with the key says so (409), never runs it a second time.
  const racing = await api.post('/v1/subscriptions', body, { 'Idempotency-Key': 'slow-1' });
  expect([409, 200]).toContain(racing.status);
  if (racing.status === 409) expect(racing.body.error.code).toBe('idempotency_key_in_use');

  // Once it has finished, the retry gets its answer.
  await new Promise((r) => setTimeout(r, 2000));
  await api.post('/v1/test_helpers/invoicing_provider', { delay_ms: 0 });
  const retry = await api.post('/v1/subscriptions', body, { 'Idempotency-Key': 'slow-1' });
  expect(retry.status).toBe(200);
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(retry.body).toMatchObject({ status: 'active', customer: customer.id });

  const counts = inStore(t.dataDir, 'events', (db) =>
    db.prepare("SELECT SUM(type = 'subscription.created') AS subscriptions, SUM(type = 'charge.paid') AS charges, SUM(type = 'invoice.issued') AS invoices FROM events").get(),
  );
  expect(counts).toEqual({ subscriptions: 1, charges: 1, invoices: 1 });
  expect((await api.get(`/v1/invoices?customer=${customer.id}`)).body.data).toHaveLength(1);

  // Fast requests are untouched by the timeout.
  expect((await api.post('/v1/products', { name: 'Fast' })).status).toBe(200);
});
