import { EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { signInMember } from '../support/dashboard-member.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let account: { id: string; test_key: string; live_key: string };
beforeAll(async () => {
  t = await startTestApp();
  account = await t.account('Tienda Llaves');
});
afterAll(() => t.close());

const keyRows = (html: string) => [...html.matchAll(/data-key-id="([A-Za-z0-9]+)" data-key-status="([a-z]+)"/g)].map((m) => ({ id: m[1], status: m[2] }));
const secretOn = (html: string) => /data-secret-key>([^<]+)</.exec(html)?.[1] ?? null;
const keyIdOf = (key: string) => key.split('_')[2].slice(0, 12);
const accountEvents = async () => (await t.app.get<EventStore>(EVENT_STORE).readStream(`account-${account.id}`)).map((e) => e.type);

test('an owner rolls the test key with 24 hours of overlap: the new secret is shown once, the old key works until then and then answers 401', async () => {
  const { visitor, memberId } = await signInMember(t, account.id, 'owner');
  const page = await visitor.get('/dashboard/keys');
  expect(page.status).toBe(200);
  // Listed masked, never whole.
  expect(page.text).not.toContain(account.test_key);
  expect(page.text).toContain(`sk_test_…${account.test_key.slice(-4)}`);
  const rolled = await visitor.post(`/dashboard/keys/${keyIdOf(account.test_key)}/roll`, { expires_in: '86400' });
  expect(rolled.status).toBe(200);
  const fresh = secretOn(rolled.text)!;
  expect(fresh).toMatch(/^sk_test_/);
  expect(rolled.text).toContain('funciona hasta');
  // Shown once: the list afterwards has it masked only.
  const again = await visitor.get('/dashboard/keys');
  expect(again.text).not.toContain(fresh);
  expect(keyRows(again.text)).toEqual(expect.arrayContaining([{ id: keyIdOf(account.test_key), status: 'expiring' }, { id: keyIdOf(fresh), status: 'active' }]));
  expect((await t.as(account.test_key).get('/v1/products')).status).toBe(200);
  expect((await t.as(fresh).get('/v1/products')).status).toBe(200);
  t.clock.set(new Date(t.clock.now().getTime() + 24 * 60 * 60 * 1000 + 1000));
  expect((await t.as(account.test_key).get('/v1/products')).status).toBe(401);
  expect((await t.as(fresh).get('/v1/products')).status).toBe(200);
  // The security log names the member who rolled it.
  const log = await t.app.get<ReadStore>(READ_STORE).find<{ type: string; actor: string | null }>('security_log', { where: { account_id: account.id }, orderBy: { field: '_position', direction: 'desc' }, limit: 50 });
  expect(log.find((e) => e.type === 'account.api_key_rolled')?.actor).toBe(memberId);
  // A day later the session has ended (30 minutes idle): sign in again. Revoked: 401 at once.
  expect((await visitor.get('/dashboard/keys')).status).toBe(303);
  const { visitor: back } = await signInMember(t, account.id, 'admin');
  const revoke = await back.post(`/dashboard/keys/${keyIdOf(fresh)}/revoke`, {});
  expect(revoke.status).toBe(303);
  expect((await t.as(fresh).get('/v1/products')).status).toBe(401);
  account.test_key = fresh;
});

test('support cannot open the keys page, and a forged roll by support changes nothing', async () => {
  const { visitor } = await signInMember(t, account.id, 'support');
  const page = await visitor.get('/dashboard/keys');
  expect(page.status).toBe(403);
  expect(page.text).toContain('No tienes permiso');
  const before = await accountEvents();
  const forged = await visitor.post(`/dashboard/keys/${keyIdOf(account.live_key)}/roll`, { expires_in: '0' });
  expect(forged.status).toBe(403);
  expect(await accountEvents()).toEqual(before);
  expect((await t.as(account.live_key).get('/v1/products')).status).toBe(200);
});

test('a developer makes a restricted key that reads subscriptions and may not create one', async () => {
  const { visitor } = await signInMember(t, account.id, 'developer');
  const made = await visitor.post('/dashboard/keys', { name: 'Reportes', mode: 'test', 'permissions[subscriptions]': 'read', 'permissions[customers]': 'none' });
  expect(made.status).toBe(200);
  const restricted = secretOn(made.text)!;
  expect(restricted).toMatch(/^rk_test_/);
  expect((await t.as(restricted).get('/v1/subscriptions')).status).toBe(200);
  const refused = await t.as(restricted).post('/v1/subscriptions', { customer: 'cus_nope', items: [{ price: 'price_nope' }] });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'permission_denied' });
  expect((await t.as(restricted).get('/v1/customers')).status).toBe(403);
});
