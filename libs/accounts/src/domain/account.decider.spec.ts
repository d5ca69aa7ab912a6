import { given } from '#shared/testing/given.js';
import { ALL_GATEWAYS } from '#payments/domain/gateways.js';
import {
  type AccountCommand,
  type AccountEvent,
  accountDecider,
  configuredGateways,
  DEFAULT_RETRY_POLICY,
  retryPolicyOf,
} from './account.decider.js';
import { hashSecret, issueApiKey, parseApiKey, secretMatches } from './api-key.js';

const now = new Date('2026-11-23T10:00:00.000Z');
const keys = [
  { key_id: 'aaaaaaaaaaaa', mode: 'test' as const, secret_hash: 'h1' },
  { key_id: 'bbbbbbbbbbbb', mode: 'live' as const, secret_hash: 'h2' },
];
const create = (name = 'Acme'): AccountCommand => ({ type: 'CreateAccount', accountId: 'acct_1', name, apiKeys: keys, now });

describe('account decider', () => {
  test('creates an account with its two keys', () => {
    given(accountDecider)
      .when(create())
      .then([
        {
          type: 'account.created',
          data: { account_id: 'acct_1', name: 'Acme', created_at: now.toISOString(), api_keys: keys, gateways: { test: [...ALL_GATEWAYS], live: [] } },
        },
      ]);
  });
  test('refuses a second creation and an empty name', () => {
    given(accountDecider, accountDecider.decide(create(), accountDecider.initialState)).when(create()).thenRejects('resource_already_exists');
    given(accountDecider).when(create('  ')).thenRejects('parameter_invalid', 'name');
  });
});

const created = (gateways = true): AccountEvent => ({
  type: 'account.created',
  data: {
    account_id: 'acct_1',
    name: 'Acme',
    created_at: now.toISOString(),
    api_keys: keys,
    ...(gateways ? { gateways: { test: [...ALL_GATEWAYS], live: [] } } : {}),
  },
});
const configure = (gateway: string, mode: 'test' | 'live' = 'test'): AccountCommand => ({ type: 'ConfigureGateway', accountId: 'acct_1', mode, gateway, now });
const remove = (gateway: string, mode: 'test' | 'live' = 'test'): AccountCommand => ({ type: 'RemoveGateway', accountId: 'acct_1', mode, gateway, now });
const configured = (gateway: string, mode: 'test' | 'live', connector: 'simulator' | 'offline' = 'simulator'): AccountEvent => ({
  type: 'account.gateway_configured',
  data: { account_id: 'acct_1', mode, gateway: gateway as never, connector, configured_at: now.toISOString() },
});
const removed = (gateway: string, mode: 'test' | 'live'): AccountEvent => ({
  type: 'account.gateway_removed',
  data: { account_id: 'acct_1', mode, gateway: gateway as never, removed_at: now.toISOString() },
});
const stateAfter = (events: AccountEvent[]) => events.reduce(accountDecider.evolve, accountDecider.initialState);

describe('account gateways', () => {
  test('a new account has all 11 gateways in test mode (offline included) and none in live mode', () => {
    const state = stateAfter([created()]);
    expect(configuredGateways(state, 'test')).toEqual(ALL_GATEWAYS);
    expect(configuredGateways(state, 'test')).toHaveLength(11);
    expect(configuredGateways(state, 'live')).toEqual([]);
  });

  test('an account.created written before gateways existed means the same defaults', () => {
    expect(stateAfter([created(false)]).gateways).toEqual({ test: ALL_GATEWAYS, live: [] });
  });

  test('configuring a live gateway records the simulator connector; offline records offline', () => {
    given(accountDecider, [created()]).when(configure('gateway_b', 'live')).then([configured('gateway_b', 'live')]);
    given(accountDecider, [created()]).when(configure('offline', 'live')).then([configured('offline', 'live', 'offline')]);
  });

  test('configuring a gateway already configured records nothing', () => {
    given(accountDecider, [created()]).when(configure('gateway_a')).then([]);
    given(accountDecider, [created(), configured('gateway_c', 'live')]).when(configure('gateway_c', 'live')).then([]);
  });

  test('removing a configured gateway; removing one not configured is 404 naming gateway', () => {
    given(accountDecider, [created()]).when(remove('gateway_j')).then([removed('gateway_j', 'test')]);
    const error = given(accountDecider, [created(), removed('gateway_j', 'test')]).when(remove('gateway_j')).thenRejects('resource_missing', 'gateway');
    expect(error.status).toBe(404);
    expect(error.message).toBe('The gateway gateway_j is not configured in the account');
    given(accountDecider, [created()]).when(remove('gateway_a', 'live')).thenRejects('resource_missing', 'gateway');
  });

  test('an unknown gateway id is a 400 naming gateway; an unknown account is 404', () => {
    given(accountDecider, [created()]).when(configure('gateway_z')).thenRejects('parameter_invalid', 'gateway');
    given(accountDecider, [created()]).when(remove('paypal')).thenRejects('parameter_invalid', 'gateway');
    expect(given(accountDecider).when(configure('gateway_a')).thenRejects('resource_missing').status).toBe(404);
  });

  test('the state follows configure and remove per mode, in catalogue order', () => {
    const state = stateAfter([created(), configured('gateway_h', 'live'), configured('gateway_a', 'live'), removed('gateway_a', 'test'), removed('offline', 'test')]);
    expect(configuredGateways(state, 'live')).toEqual(['gateway_a', 'gateway_h']);
    expect(configuredGateways(state, 'test')).toEqual(ALL_GATEWAYS.filter((g) => g !== 'gateway_a' && g !== 'offline'));
    given(accountDecider, [created(), removed('gateway_a', 'test')]).when(configure('gateway_a')).then([configured('gateway_a', 'test')]);
  });
});

const setPolicy = (retry_days: number[], final_days: number, accountId = 'acct_1'): AccountCommand => ({ type: 'SetRetryPolicy', accountId, retry_days, final_days, now });
const policySet = (retry_days: number[], final_days: number): AccountEvent => ({
  type: 'account.retry_policy_set',
  data: { account_id: 'acct_1', retry_days, final_days, set_at: now.toISOString() },
});

describe('account retry policy', () => {
  test('the documented default: retries at due + 1, 3, 5 days, uncollectible at due + 7', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ retry_days: [1, 3, 5], final_days: 7 });
    expect(Object.isFrozen(DEFAULT_RETRY_POLICY)).toBe(true);
    expect(retryPolicyOf(stateAfter([created()]))).toEqual({ retry_days: [1, 3, 5], final_days: 7 });
    expect(retryPolicyOf(accountDecider.initialState)).toEqual({ retry_days: [1, 3, 5], final_days: 7 });
  });

  test('setting a policy records it; the state follows the last one', () => {
    given(accountDecider, [created()]).when(setPolicy([2, 4, 8, 16], 30)).then([policySet([2, 4, 8, 16], 30)]);
    given(accountDecider, [created(), policySet([2, 4], 10)]).when(setPolicy([1, 3, 5], 7)).then([policySet([1, 3, 5], 7)]);
    const state = stateAfter([created(), policySet([2, 4], 10), policySet([], 3)]);
    expect(retryPolicyOf(state)).toEqual({ retry_days: [], final_days: 3 });
    expect(state.gateways).toEqual({ test: ALL_GATEWAYS, live: [] });
  });

  test('no retries and the limits themselves are allowed', () => {
    given(accountDecider, [created()]).when(setPolicy([], 1)).then([policySet([], 1)]);
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 60];
    given(accountDecider, [created()]).when(setPolicy(ten, 90)).then([policySet(ten, 90)]);
  });

  test('setting the policy the account already has records nothing (the default included)', () => {
    given(accountDecider, [created()]).when(setPolicy([1, 3, 5], 7)).then([]);
    given(accountDecider, [created(), policySet([2, 9], 14)]).when(setPolicy([2, 9], 14)).then([]);
  });

  test('retryPolicyOf returns a copy', () => {
    const state = stateAfter([created(), policySet([2, 4], 10)]);
    retryPolicyOf(state).retry_days.push(99);
    expect(retryPolicyOf(state)).toEqual({ retry_days: [2, 4], final_days: 10 });
    const fresh = stateAfter([created()]);
    retryPolicyOf(fresh).retry_days.length = 0;
    expect(retryPolicyOf(stateAfter([created()]))).toEqual({ retry_days: [1, 3, 5], final_days: 7 });
  });

  test('final_days must be an integer from 1 to 90', () => {
    for (const final of [0, 91, 7.5, -1, Number.NaN]) {
      given(accountDecider, [created()]).when(setPolicy([], final)).thenRejects('parameter_invalid', 'final_days');
    }
    given(accountDecider, [created()]).when(setPolicy([1], '7' as never)).thenRejects('parameter_invalid', 'final_days');
  });

  test('retry_days: at most 10 integers from 1 to 60, strictly increasing, all below final_days', () => {
    const rejects = (days: unknown, final = 90) =>
      given(accountDecider, [created()]).when(setPolicy(days as number[], final)).thenRejects('parameter_invalid', 'retry_days');
    rejects([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    rejects([0, 3]);
    rejects([1, 61]);
    rejects([1.5]);
    rejects(['1']);
    rejects([3, 1]);
    rejects([3, 3]);
    rejects('1,3,5');
    expect(rejects([1, 3, 7], 7).message).toBe('every entry of retry_days must be less than final_days (7)');
    rejects([8], 7);
  });

  test('an unknown account is 404', () => {
    expect(given(accountDecider).when(setPolicy([1], 2)).thenRejects('resource_missing').status).toBe(404);
  });
});

describe('api keys', () => {
  test('a key carries its mode and id; only the hash of its secret is kept', () => {
    const issued = issueApiKey('test');
    expect(issued.key).toMatch(/^sk_test_[0-9A-Za-z]{44}$/);
    const parsed = parseApiKey(issued.key)!;
    expect(parsed).toMatchObject({ mode: 'test', keyId: issued.keyId });
    expect(issued.secretHash).toBe(hashSecret(parsed.secret));
    expect(issued.secretHash).not.toContain(parsed.secret);
    expect(secretMatches(parsed.secret, issued.secretHash)).toBe(true);
    expect(secretMatches(`${parsed.secret.slice(0, -1)}${parsed.secret.endsWith('0') ? '1' : '0'}`, issued.secretHash)).toBe(false);
  });
  test('anything else is not a key', () => {
    expect(parseApiKey('sk_prod_123')).toBeNull();
    expect(parseApiKey('')).toBeNull();
    expect(parseApiKey(`${issueApiKey('live').key}x`)).toBeNull();
  });
});

describe('account name', () => {
  const rename = (name: string): AccountCommand => ({ type: 'RenameAccount', accountId: 'acct_1', name, now });
  test('renaming records the trimmed new name; the state follows it', () => {
    given(accountDecider, [created()])
      .when(rename('  Mi Tienda SAS '))
      .then([{ type: 'account.renamed', data: { account_id: 'acct_1', name: 'Mi Tienda SAS', renamed_at: now.toISOString() } }]);
    expect(stateAfter([created(), { type: 'account.renamed', data: { account_id: 'acct_1', name: 'Mi Tienda SAS', renamed_at: now.toISOString() } }]).name).toBe('Mi Tienda SAS');
  });
  test('the name it already has records nothing; an empty or over-long name is 400 naming name; an unknown account 404', () => {
    given(accountDecider, [created()]).when(rename('Acme')).then([]);
    given(accountDecider, [created()]).when(rename(' ')).thenRejects('parameter_invalid', 'name');
    given(accountDecider, [created()]).when(rename('x'.repeat(201))).thenRejects('parameter_invalid', 'name');
    expect(given(accountDecider).when(rename('Nadie')).thenRejects('resource_missing').status).toBe(404);
  });
});
