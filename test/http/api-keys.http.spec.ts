import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import type { CommandContext } from '#platform/command-context.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { AuthenticateApiKey } from '#accounts/application/authenticate-api-key.js';
import { CreateApiKeyCommand, type CreateApiKeyInput, type CreatedApiKey } from '#accounts/application/create-api-key.js';
import { RollApiKeyCommand, type RolledApiKey } from '#accounts/application/roll-api-key.js';
import { RevokeApiKeyCommand, type RevokedApiKey } from '#accounts/application/revoke-api-key.js';
import { type ApiKeyObject, ListApiKeysQuery } from '#accounts/application/list-api-keys.js';
import { parseApiKey, RESTRICTED_KEY_RESOURCES } from '#accounts/domain/api-key.js';
import { API_RESOURCE } from '#http/api-resource.js';
import { PUBLIC_ROUTE } from '#accounts/http/basic-auth.guard.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const cli = (accountId: string): CommandContext => ({ accountId, mode: 'live', requestId: null, idempotencyKey: null, actor: { type: 'cli' } });
const dashboard = (accountId: string): CommandContext => ({
  accountId,
  mode: 'test',
  requestId: null,
  idempotencyKey: null,
  actor: { type: 'dashboard', member: 'mem_keysowner000001' },
  address: '203.0.113.9',
});

/** Runs a key command the way the CLI and the dashboard do, then waits for the read models (as `account()` does). */
async function run<R extends { position: string | null }>(command: object): Promise<R> {
  const result = await t.app.get(CommandBus).execute<object, R>(command);
  await t.app.get(ProjectionEngine).waitFor(result.position);
  return result;
}
const createKey = (accountId: string, input: CreateApiKeyInput) => run<CreatedApiKey>(new CreateApiKeyCommand(dashboard(accountId), input));
const rollKey = (accountId: string, keyId: string, seconds: number) => run<RolledApiKey>(new RollApiKeyCommand(dashboard(accountId), keyId, seconds));
const revokeKey = (accountId: string, keyId: string) => run<RevokedApiKey>(new RevokeApiKeyCommand(cli(accountId), keyId));
const keyIdOf = (key: string) => parseApiKey(key)!.keyId;
const headPosition = () => t.app.get<EventStore>(EVENT_STORE).headPosition();

describe('rolling and revoking keys', () => {
  test('a rolled key works until its expiry, then answers 401 like an unknown key; the new key works', async () => {
    const account = await t.account('Roll SAS');
    const rolled = await rollKey(account.id, keyIdOf(account.test_key), 3600);
    expect(rolled.key).toMatch(/^sk_test_[0-9A-Za-z]{44}$/);
    expect(rolled.rolled).toEqual({ id: keyIdOf(account.test_key), expires_at: new Date(t.clock.now().getTime() + 3_600_000).toISOString() });

    expect((await t.as(account.test_key).get('/v1/products')).status).toBe(200);
    expect((await t.as(rolled.key).get('/v1/products')).status).toBe(200);
    t.clock.advanceMs(3_600_000 - 1);
    expect((await t.as(account.test_key).get('/v1/products')).status).toBe(200);
    t.clock.advanceMs(1);
    const expired = await t.as(account.test_key).get('/v1/products');
    expect(expired.status).toBe(401);
    expect(expired.body.error).toEqual({ type: 'authentication_error', code: 'invalid_api_key', message: 'Invalid API key provided.', param: null });
    expect((await t.as(rolled.key).post('/v1/products', { name: 'Still here' })).status).toBe(200);
  });

  test('a key rolled with expires_in 0 stops at once; out-of-range expiries are 400 naming expires_in', async () => {
    const account = await t.account('Roll now SAS');
    const rolled = await rollKey(account.id, keyIdOf(account.live_key), 0);
    expect((await t.as(account.live_key).get('/v1/products')).status).toBe(401);
    expect((await t.as(rolled.key).get('/v1/products')).status).toBe(200);
    await expect(rollKey(account.id, rolled.id, 7 * 86400 + 1)).rejects.toMatchObject({ status: 400, code: 'parameter_invalid', param: 'expires_in' });
    await expect(rollKey(account.id, keyIdOf(account.live_key), 60)).rejects.toMatchObject({ status: 404, code: 'resource_missing', param: 'key' });
  });

  test('a revoked key answers 401 at once; revoking it again is 404', async () => {
    const account = await t.account('Revoke SAS');
    expect((await t.as(account.live_key).get('/v1/customers')).status).toBe(200);
    await revokeKey(account.id, keyIdOf(account.live_key));
    const res = await t.as(account.live_key).get('/v1/customers');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    await expect(revokeKey(account.id, keyIdOf(account.live_key))).rejects.toMatchObject({ status: 404, param: 'key' });
    // The other key of the account is untouched.
    expect((await t.as(account.test_key).get('/v1/customers')).status).toBe(200);
  });

  test("another account's key cannot be rolled nor revoked through this account", async () => {
    const mine = await t.account('Mine SAS');
    const theirs = await t.account('Theirs SAS');
    await expect(revokeKey(mine.id, keyIdOf(theirs.test_key))).rejects.toMatchObject({ status: 404, param: 'key' });
    expect((await t.as(theirs.test_key).get('/v1/products')).status).toBe(200);
  });
});

describe('restricted keys', () => {
  test('subscriptions: read lists subscriptions and gets 403 permission_denied creating one, with nothing written', async () => {
    const account = await t.account('Restricted SAS');
    const api = t.as(account.test_key);
    const s = await billingSetup(api);
    const body = { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() };
    const rk = await createKey(account.id, { kind: 'restricted', mode: 'test', name: 'Reports', permissions: { subscriptions: 'read' } });
    expect(rk.key).toMatch(/^rk_test_[0-9A-Za-z]{44}$/);

    const list = await t.as(rk.key).get('/v1/subscriptions');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);

    const head = await headPosition();
    const refused = await t.as(rk.key).post('/v1/subscriptions', body, { 'Idempotency-Key': 'rk-attempt-1' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: { type: 'invalid_request_error', code: 'permission_denied', message: 'This API key lacks the permission subscriptions: write.', param: null },
    });
    expect(await headPosition()).toBe(head); // no event, no idempotency claim
    expect((await api.get('/v1/subscriptions')).body.data).toHaveLength(0);

    // The same body with a secret key (and the same Idempotency-Key) does create one: the refusal stored nothing.
    const created = await api.post('/v1/subscriptions', body, { 'Idempotency-Key': 'rk-attempt-1' });
    expect(created.status).toBe(200);
    const after = await t.as(rk.key).get(`/v1/subscriptions/${created.body.id}`);
    expect(after.status).toBe(200);
    expect(after.body.id).toBe(created.body.id);
  });

  test("revenue reports: a finance tool's key with reports: read gets them, one without gets 403", async () => {
    const account = await t.account('Finance SAS');
    const finance = await createKey(account.id, { kind: 'restricted', mode: 'test', name: 'Finance', permissions: { reports: 'read' } });
    const other = await createKey(account.id, { kind: 'restricted', mode: 'test', name: 'Catalog', permissions: { products: 'write' } });
    const mrr = await t.as(finance.key).get('/v1/reports/mrr?interval=month');
    expect(mrr.status).toBe(200);
    expect(mrr.body).toMatchObject({ object: 'report', report: 'mrr', currency: 'COP' });
    expect(mrr.body.periods).toHaveLength(12); // a year of months by default, the current one last
    expect((await t.as(finance.key).get('/v1/subscriptions')).status).toBe(403);
    const refused = await t.as(other.key).get('/v1/reports/summary');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', message: 'This API key lacks the permission reports: read.' });
  });

  test('a resource left out is 403 even to read; write implies read; the key only works in its mode', async () => {
    const account = await t.account('Restricted 2 SAS');
    const rk = await createKey(account.id, { kind: 'restricted', mode: 'live', permissions: { subscriptions: 'read', products: 'write' } });
    const customers = await t.as(rk.key).get('/v1/customers');
    expect(customers.status).toBe(403);
    expect(customers.body.error).toMatchObject({ code: 'permission_denied', message: 'This API key lacks the permission customers: read.' });
    expect((await t.as(rk.key).get('/v1/products')).status).toBe(200);
    const product = await t.as(rk.key).post('/v1/products', { name: 'Made by a restricted key' });
    expect(product.status).toBe(200);
    expect(product.body.is_test).toBe(false);
    // The customer's payment methods belong to payment_methods, not to customers.
    expect((await t.as(rk.key).get('/v1/customers/cus_nothing/payment_methods')).body.error.message).toBe('This API key lacks the permission payment_methods: read.');
    expect((await t.as(rk.key.replace('rk_live_', 'rk_test_')).get('/v1/products')).status).toBe(401);
    expect((await t.as(rk.key.replace('rk_live_', 'sk_live_')).get('/v1/products')).status).toBe(401);
  });

  test('a rolled restricted key keeps its kind and permissions', async () => {
    const account = await t.account('Restricted roll SAS');
    const rk = await createKey(account.id, { kind: 'restricted', mode: 'test', permissions: { customers: 'read' } });
    const rolled = await rollKey(account.id, rk.id, 0);
    expect(rolled.key).toMatch(/^rk_test_/);
    expect((await t.as(rolled.key).get('/v1/customers')).status).toBe(200);
    expect((await t.as(rolled.key).post('/v1/customers', { email: 'x@example.com' })).status).toBe(403);
    expect((await t.as(rk.key).get('/v1/customers')).status).toBe(401);
  });

  test('every authenticated route declares the resource a restricted key needs, one of RESTRICTED_KEY_RESOURCES', () => {
    const reflector = t.app.get(Reflector);
    const missing: string[] = [];
    const unknown: string[] = [];
    const used = new Set<string>();
    const controllers = [...t.app.get(ModulesContainer).values()].flatMap((m) => [...m.controllers.values()]);
    expect(controllers.length).toBeGreaterThan(20);
    for (const wrapper of controllers) {
      const cls = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!cls) continue;
      const proto = cls.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        if (reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, [handler, cls])) continue;
        const resource = reflector.getAllAndOverride<string>(API_RESOURCE, [handler, cls]);
        if (!resource) missing.push(`${cls.name}.${name}`);
        else if (!(RESTRICTED_KEY_RESOURCES as readonly string[]).includes(resource)) unknown.push(`${cls.name}.${name}: ${resource}`);
        else used.add(resource);
      }
    }
    expect(missing).toEqual([]);
    expect(unknown).toEqual([]);
    // And no resource is offered that no route has.
    expect([...RESTRICTED_KEY_RESOURCES].filter((r) => !used.has(r))).toEqual([]);
  });
});

describe('listing keys', () => {
  test('keys are listed masked with kind, mode, name, dates, status and permissions; never a hash or a secret', async () => {
    const account = await t.account('List SAS');
    const rk = await createKey(account.id, { kind: 'restricted', mode: 'live', name: 'Warehouse', permissions: { customers: 'write', products: 'read' } });
    const rolled = await rollKey(account.id, keyIdOf(account.test_key), 86400);
    await revokeKey(account.id, rk.id);
    await t.as(rolled.key).get('/v1/products');
    await t.app.get(AuthenticateApiKey).usageSettled();

    const keys = await t.app.get(QueryBus).execute<ListApiKeysQuery, ApiKeyObject[]>(new ListApiKeysQuery(account.id));
    const byId = new Map(keys.map((k) => [k.id, k]));
    expect(keys).toHaveLength(4);
    expect(byId.get(keyIdOf(account.test_key))).toMatchObject({
      kind: 'secret',
      mode: 'test',
      name: 'Secret key',
      masked: `sk_test_…${account.test_key.slice(-4)}`,
      status: 'expiring',
      expires_at: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
      revoked_at: null,
      permissions: null,
    });
    expect(byId.get(keyIdOf(account.live_key))).toMatchObject({ status: 'active', masked: `sk_live_…${account.live_key.slice(-4)}`, created_at: t.clock.now().toISOString() });
    expect(byId.get(rk.id)).toMatchObject({ kind: 'restricted', name: 'Warehouse', masked: `rk_live_…${rk.key.slice(-4)}`, status: 'revoked', permissions: { customers: 'write', products: 'read' } });
    expect(byId.get(rolled.id)).toMatchObject({ status: 'active', last_used_at: t.clock.now().toISOString() });
    expect(byId.get(rk.id)!.last_used_at).toBeNull();

    const text = JSON.stringify(keys);
    expect(text).not.toMatch(/secret_hash|[0-9a-f]{64}/);
    for (const key of [account.test_key, account.live_key, rk.key, rolled.key]) {
      expect(text).not.toContain(parseApiKey(key)!.secret);
      expect(text).not.toContain(parseApiKey(key)!.secret.slice(0, 8));
    }
    // Only the last four characters of a key are shown.
    for (const k of keys) expect(k.masked).toMatch(/^(sk|rk)_(test|live)_…[0-9A-Za-z]{4}$/);
  });

  test("key events are internal account events that name the actor and never hold a key's secret", async () => {
    const account = await t.account('Events SAS');
    const rk = await createKey(account.id, { kind: 'restricted', mode: 'test', permissions: { events: 'read' } });
    const events = await t.app.get<EventStore>(EVENT_STORE).readStream(`account-${account.id}`);
    const created = events.find((e) => e.type === 'account.api_key_created')!;
    expect(created.metadata).toMatchObject({ actor: { type: 'dashboard', member: 'mem_keysowner000001' }, address: '203.0.113.9' });
    expect(JSON.stringify(events)).not.toContain(parseApiKey(rk.key)!.secret);
    // Not in the public feed.
    const feed = await t.as(account.test_key).get('/v1/events?limit=100');
    expect(feed.body.data.map((e: { type: string }) => e.type).filter((type: string) => type.startsWith('account.'))).toEqual([]);
  });
});
