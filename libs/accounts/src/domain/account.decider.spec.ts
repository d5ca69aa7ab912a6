import { given } from '../../../shared/src/testing/given.js';
import { type AccountCommand, accountDecider } from './account.decider.js';
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
      .then([{ type: 'account.created', data: { account_id: 'acct_1', name: 'Acme', created_at: now.toISOString(), api_keys: keys } }]);
  });
  test('refuses a second creation and an empty name', () => {
    given(accountDecider, accountDecider.decide(create(), accountDecider.initialState)).when(create()).thenRejects('resource_already_exists');
    given(accountDecider).when(create('  ')).thenRejects('parameter_invalid', 'name');
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
    expect(secretMatches(`${parsed.secret.slice(0, -1)}0`, issued.secretHash)).toBe(false);
  });
  test('anything else is not a key', () => {
    expect(parseApiKey('sk_prod_123')).toBeNull();
    expect(parseApiKey('')).toBeNull();
    expect(parseApiKey(`${issueApiKey('live').key}x`)).toBeNull();
  });
});
