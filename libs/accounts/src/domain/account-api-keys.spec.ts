import { given } from '#shared/testing/given.js';
import { ALL_GATEWAYS } from '#payments/domain/gateways.js';
import { type AccountCommand, type AccountEvent, accountDecider } from './account.decider.js';
import { type ApiKeyEventRecord, MAX_ROLL_EXPIRY_SECONDS } from './account-api-keys.js';
import { formatApiKey, issueApiKey, maskKey, newKeyMaterial, parseApiKey, permits, RESTRICTED_KEY_RESOURCES } from './api-key.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const created: AccountEvent = {
  type: 'account.created',
  data: {
    account_id: 'acct_1',
    name: 'Acme',
    created_at: now.toISOString(),
    api_keys: [
      { key_id: 'sktest000001', mode: 'test', secret_hash: 'h1' },
      { key_id: 'sklive000001', mode: 'live', secret_hash: 'h2' },
    ],
    gateways: { test: [...ALL_GATEWAYS], live: [] },
  },
};
const material = (id: string) => ({ key_id: id, secret_hash: `hash-${id}`, last4: id.slice(-4) });
const createKey = (over: Partial<Extract<AccountCommand, { type: 'CreateApiKey' }>> = {}): AccountCommand => ({
  type: 'CreateApiKey',
  accountId: 'acct_1',
  kind: 'restricted',
  mode: 'live',
  name: 'Reporting',
  permissions: { subscriptions: 'read', customers: 'write' },
  key: material('rklive000001'),
  now,
  ...over,
});
const roll = (keyId: string, expiresInSeconds: number, newId = 'newkey000001', at = now): AccountCommand => ({
  type: 'RollApiKey',
  accountId: 'acct_1',
  keyId,
  expiresInSeconds,
  newKey: material(newId),
  now: at,
});
const revoke = (keyId: string, at = now): AccountCommand => ({ type: 'RevokeApiKey', accountId: 'acct_1', keyId, now: at });
const restricted: ApiKeyEventRecord = {
  key_id: 'rklive000001',
  kind: 'restricted',
  mode: 'live',
  name: 'Reporting',
  secret_hash: 'hash-rklive000001',
  last4: '0001',
  created_at: now.toISOString(),
  permissions: { customers: 'write', subscriptions: 'read' },
};
const keyCreated: AccountEvent = { type: 'account.api_key_created', data: { account_id: 'acct_1', ...restricted } };
const rolled = (keyId: string, seconds: number, newKey: ApiKeyEventRecord): AccountEvent => ({
  type: 'account.api_key_rolled',
  data: { account_id: 'acct_1', key_id: keyId, expires_at: later(seconds).toISOString(), new_key: newKey, rolled_at: now.toISOString() },
});
const secretNew = (id = 'newkey000001'): ApiKeyEventRecord => ({
  key_id: id,
  kind: 'secret',
  mode: 'test',
  name: 'Secret key',
  secret_hash: `hash-${id}`,
  last4: id.slice(-4),
  created_at: now.toISOString(),
});

describe('CreateApiKey', () => {
  test('a restricted key records its kind, mode, name, hash, last four and permissions (in the catalogue order)', () => {
    given(accountDecider, [created]).when(createKey()).then([keyCreated]);
  });

  test('a secret key gets the default name and no permissions', () => {
    given(accountDecider, [created])
      .when(createKey({ kind: 'secret', mode: 'test', name: null, permissions: null, key: material('sktest000002') }))
      .then([
        {
          type: 'account.api_key_created',
          data: { account_id: 'acct_1', key_id: 'sktest000002', kind: 'secret', mode: 'test', name: 'Secret key', secret_hash: 'hash-sktest000002', last4: '0002', created_at: now.toISOString() },
        },
      ]);
  });

  test('`none` permissions are dropped; a restricted key needs at least one read or write', () => {
    given(accountDecider, [created])
      .when(createKey({ permissions: { products: 'none', prices: 'read' } }))
      .then((events) => expect((events[0].data as ApiKeyEventRecord).permissions).toEqual({ prices: 'read' }));
    given(accountDecider, [created]).when(createKey({ permissions: {} })).thenRejects('parameter_invalid', 'permissions');
    given(accountDecider, [created]).when(createKey({ permissions: { products: 'none' } })).thenRejects('parameter_invalid', 'permissions');
    given(accountDecider, [created]).when(createKey({ permissions: null })).thenRejects('parameter_invalid', 'permissions');
  });

  test('unknown resources, other values, permissions on a secret key, a bad kind, mode or name are 400 naming the field', () => {
    given(accountDecider, [created]).when(createKey({ permissions: { spaceships: 'read' } })).thenRejects('parameter_invalid', 'permissions[spaceships]');
    given(accountDecider, [created]).when(createKey({ permissions: { customers: 'admin' } })).thenRejects('parameter_invalid', 'permissions[customers]');
    given(accountDecider, [created]).when(createKey({ kind: 'secret' })).thenRejects('parameter_invalid', 'permissions');
    given(accountDecider, [created]).when(createKey({ kind: 'public' as never })).thenRejects('parameter_invalid', 'kind');
    given(accountDecider, [created]).when(createKey({ mode: 'prod' as never })).thenRejects('parameter_invalid', 'mode');
    given(accountDecider, [created]).when(createKey({ name: '  ' })).thenRejects('parameter_invalid', 'name');
    given(accountDecider, [created]).when(createKey({ name: 'x'.repeat(101) })).thenRejects('parameter_invalid', 'name');
  });

  test('on an account that does not exist: 404', () => {
    expect(given(accountDecider).when(createKey()).thenRejects('resource_missing').status).toBe(404);
  });
});

describe('RollApiKey', () => {
  test('a secret key of account.created rolls to a new secret key of the same mode; the old one expires after the delay', () => {
    given(accountDecider, [created]).when(roll('sktest000001', 3600)).then([rolled('sktest000001', 3600, secretNew())]);
  });

  test('a restricted key rolls to a restricted key with the same name and permissions', () => {
    given(accountDecider, [created, keyCreated])
      .when(roll('rklive000001', 0))
      .then([rolled('rklive000001', 0, { ...restricted, key_id: 'newkey000001', secret_hash: 'hash-newkey000001', last4: '0001' })]);
  });

  test('expires_in from 0 to 7 days, whole seconds; anything else is 400 naming expires_in', () => {
    given(accountDecider, [created]).when(roll('sktest000001', MAX_ROLL_EXPIRY_SECONDS)).then((e) => expect(e).toHaveLength(1));
    for (const bad of [-1, MAX_ROLL_EXPIRY_SECONDS + 1, 1.5, Number.NaN]) {
      given(accountDecider, [created]).when(roll('sktest000001', bad)).thenRejects('parameter_invalid', 'expires_in');
    }
  });

  test('an unknown, revoked or expired key is 404 naming key', () => {
    expect(given(accountDecider, [created]).when(roll('nokey0000000', 60)).thenRejects('resource_missing', 'key').status).toBe(404);
    given(accountDecider, [created, { type: 'account.api_key_revoked', data: { account_id: 'acct_1', key_id: 'sktest000001', revoked_at: now.toISOString() } }])
      .when(roll('sktest000001', 60))
      .thenRejects('resource_missing', 'key');
    given(accountDecider, [created, rolled('sktest000001', 60, secretNew())]).when(roll('sktest000001', 60, 'other0000001', later(60))).thenRejects('resource_missing', 'key');
  });

  test('a key still in its overlap is not rolled again (409 naming key): its replacement, the newest key, is', () => {
    const past = [created, rolled('sktest000001', 3600, secretNew())];
    const error = given(accountDecider, past).when(roll('sktest000001', 60, 'other0000001', later(10))).thenRejects('invalid_state', 'key');
    expect(error.status).toBe(409);
    expect(error.message).toContain('newkey000001');
    given(accountDecider, past)
      .when(roll('newkey000001', 60, 'other0000001', later(10)))
      .then((events) => expect(events[0]).toMatchObject({ type: 'account.api_key_rolled', data: { key_id: 'newkey000001', new_key: { key_id: 'other0000001', kind: 'secret', mode: 'test' } } }));
  });
});

describe('RevokeApiKey', () => {
  test('revokes a key at once, a rolled key in its overlap too', () => {
    const revoked = { type: 'account.api_key_revoked' as const, data: { account_id: 'acct_1', key_id: 'sklive000001', revoked_at: now.toISOString() } };
    given(accountDecider, [created]).when(revoke('sklive000001')).then([revoked]);
    given(accountDecider, [created, rolled('sktest000001', 3600, secretNew())])
      .when(revoke('sktest000001'))
      .then([{ type: 'account.api_key_revoked', data: { account_id: 'acct_1', key_id: 'sktest000001', revoked_at: now.toISOString() } }]);
  });

  test('an unknown or already revoked key is 404 naming key', () => {
    given(accountDecider, [created]).when(revoke('nokey0000000')).thenRejects('resource_missing', 'key');
    given(accountDecider, [created, { type: 'account.api_key_revoked', data: { account_id: 'acct_1', key_id: 'sklive000001', revoked_at: now.toISOString() } }])
      .when(revoke('sklive000001'))
      .thenRejects('resource_missing', 'key');
  });

  test('the state follows: kinds, expiry and revocation per key', () => {
    const state = [created, keyCreated, rolled('sktest000001', 60, secretNew()), { type: 'account.api_key_revoked', data: { account_id: 'acct_1', key_id: 'rklive000001', revoked_at: now.toISOString() } } as AccountEvent].reduce(
      accountDecider.evolve,
      accountDecider.initialState,
    );
    expect(state.keys).toEqual({
      sktest000001: { kind: 'secret', mode: 'test', name: 'Secret key', expires_at: later(60).toISOString(), revoked: false, rolled_to: 'newkey000001' },
      sklive000001: { kind: 'secret', mode: 'live', name: 'Secret key', expires_at: null, revoked: false, rolled_to: null },
      rklive000001: { kind: 'restricted', mode: 'live', name: 'Reporting', permissions: { customers: 'write', subscriptions: 'read' }, expires_at: null, revoked: true, rolled_to: null },
      newkey000001: { kind: 'secret', mode: 'test', name: 'Secret key', expires_at: null, revoked: false, rolled_to: null },
    });
  });
});

describe('restricted keys and masks', () => {
  test('rk_ keys have the shape of sk_ keys and parse with their kind', () => {
    const m = newKeyMaterial();
    const key = formatApiKey('restricted', 'live', m);
    expect(key).toMatch(/^rk_live_[0-9A-Za-z]{44}$/);
    expect(parseApiKey(key)).toEqual({ kind: 'restricted', mode: 'live', keyId: m.keyId, secret: m.secret });
    expect(parseApiKey(issueApiKey('test').key)).toMatchObject({ kind: 'secret', mode: 'test' });
    expect(parseApiKey('pk_live_' + key.slice(8))).toBeNull();
    expect(m.last4).toBe(key.slice(-4));
  });

  test('a masked key shows its prefix and last four characters only', () => {
    expect(maskKey('secret', 'live', 'wxyz')).toBe('sk_live_…wxyz');
    expect(maskKey('restricted', 'test', 'AB12')).toBe('rk_test_…AB12');
    expect(maskKey('secret', 'test', null)).toBe('sk_test_…');
  });

  test('write implies read; nothing is granted on a resource left out', () => {
    expect(permits({ subscriptions: 'read' }, 'subscriptions', 'read')).toBe(true);
    expect(permits({ subscriptions: 'read' }, 'subscriptions', 'write')).toBe(false);
    expect(permits({ customers: 'write' }, 'customers', 'read')).toBe(true);
    expect(permits({ customers: 'write' }, 'products', 'read')).toBe(false);
    expect(RESTRICTED_KEY_RESOURCES).toContain('subscriptions');
  });
});
