import { startTestApp, type TestApp } from '#test/support/test-app.js';
import { expectCheckoutSessionSameAfterRebuild } from '#test/support/rebuild-checks.js';
import { billingSetup } from '#test/support/billing-fixtures.js';
import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import { BUYER_DATA_RETENTION_DAYS } from '#checkout/domain/checkout-session.decider.js';
import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { NO_DEADLINE } from '#shared/deadlines.js';

/**
 * docs/personal-data.md: a hosted checkout's session never tied to a customer keeps what its buyer
 * entered (encrypted under the session's key) for 30 days after it expired; then the scheduler
 * destroys the key, records `checkout_buyer.forgotten`, and everything shows the placeholders.
 */
let t: TestApp;
let key: string;
let account: string;
beforeAll(async () => {
  t = await startTestApp();
  const created = await t.account();
  key = created.test_key;
  account = created.id;
});
afterAll(() => t?.close());

const DAY = 86_400_000;

test('a session never tied to a customer: its buyer\'s entries are forgotten 30 days after it expired (not before), as a rebuild shows them', async () => {
  const api = t.as(key);
  const s = await billingSetup(api);
  const pages = t.app.get(HostedCheckout);
  const stamp = Date.now().toString(36);
  const req = { ip_address: '198.51.100.23', user_agent: `Mozilla/5.0 (Olvido ${stamp})` };
  const entered = { email: `anonima.${stamp}@correo.co`, dedication: `Para Marta Ruiz ${stamp}`, street: `Transversal 39 # 71-${stamp}`, user_agent: req.user_agent, ip: req.ip_address };
  const session = (
    await api.post('/v1/checkout_session', {
      mode: 'payment',
      items: [{ price: s.setupFee.id }],
      custom_fields: [{ key: 'dedicatoria', label: 'Dedicatoria', required: true }],
      shipping_address_collection: true,
      shipping_address_countries: ['CO'],
      consent: { terms_of_service: true },
    })
  ).body;
  expect(session.customer).toBeNull();
  const tk = session.url.split('#')[1];
  expect((await pages.requestEmailCode(tk, entered.email, req)).identification.step).toBe('new_customer');
  await pages.saveDetails(tk, { consent: { terms_of_service: true }, custom_fields: { dedicatoria: entered.dedication }, shipping_address: { address_1: entered.street, city: 'Medellín', state: 'Antioquia', country: 'CO' } }, req);
  // The buyer walks away: the merchant expires it (an unpaid session expires the same way at expires_at).
  const expired = await api.post(`/v1/checkout_session/${session.id}/expire`);
  expect(expired.body).toMatchObject({ status: 'expired', customer: null });
  const shown = async () => JSON.stringify([(await api.get(`/v1/checkout_session/${session.id}`)).body, (await api.get('/v1/events?limit=100&type=checkout_session.updated')).body]);
  const stream = async () => JSON.stringify(await t.app.get<EventStore>(EVENT_STORE).readStream(`checkoutsession-${session.id}`));
  for (const text of [await shown(), await stream()]) for (const v of [entered.dedication, entered.street, entered.user_agent]) expect(text).toContain(v);
  expect(await stream()).toContain(entered.email);

  const reads = t.app.get<ReadStore>(READ_STORE);
  const doc = (await reads.get<{ _due_kind: string; _due_at: string; expired_at: string }>('checkout_sessions', session.id))!;
  expect(doc).toMatchObject({ _due_kind: 'forget_buyer', _due_at: new Date(Date.parse(doc.expired_at) + BUYER_DATA_RETENTION_DAYS * DAY).toISOString() });

  // A day before: nothing is forgotten.
  t.clock.advanceMs(BUYER_DATA_RETENTION_DAYS * DAY - DAY);
  await t.runDue();
  for (const v of [entered.dedication, entered.street, entered.user_agent]) expect(await shown()).toContain(v);

  // At 30 days: the key is gone; the API, the feed and the events read as placeholders.
  t.clock.advanceMs(DAY);
  expect((await t.runDue()).ran).toBeGreaterThanOrEqual(1);
  const after = (await api.get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({
    id: session.id,
    status: 'expired',
    custom_fields: [expect.objectContaining({ key: 'dedicatoria', value: '[erased]' })],
    shipping_address: null,
    consent: { terms_of_service: true, ip_address: '[erased]', user_agent: '[erased]' },
  });
  for (const text of [await shown(), await stream(), JSON.stringify((await api.get('/v1/events?limit=100')).body)]) for (const v of Object.values(entered)) expect(text).not.toContain(v);
  expect(await stream()).toContain('checkout_buyer.forgotten');
  expect(await reads.get('customer_keys', session.id)).toMatchObject({ sealed: null, erased_at: expect.any(String) });
  const settled = (await reads.get<{ _due_at: string }>('checkout_sessions', session.id))!;
  expect(settled._due_at).toBe(NO_DEADLINE);
  // Nothing is due any more; a rebuild writes the same documents.
  expect((await t.runDue()).ran).toBe(0);
  await expectCheckoutSessionSameAfterRebuild(t, account, session.id);
}, 60_000);
