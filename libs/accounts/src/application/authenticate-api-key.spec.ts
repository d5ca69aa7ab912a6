import { describe, expect, test } from '@jest/globals';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { FixedClock } from '#shared/clock.js';
import { formatApiKey, issueApiKey, newKeyMaterial } from '../domain/api-key.js';
import { AuthenticateApiKey, type KeyChangeSource } from './authenticate-api-key.js';

/** A stand-in for the projection pipeline: shows batches, says whether it runs and what it committed. */
class FakePipeline implements KeyChangeSource {
  running = true;
  committed: string | null = null;
  private listeners = new Set<(events: RecordedEvent[]) => void>();
  onBatch(listener: (events: RecordedEvent[]) => void) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  watching() {
    return this.running;
  }
  checkpoints() {
    return new Map([['api_keys', this.committed]]);
  }
  show(events: Partial<RecordedEvent>[]) {
    for (const l of this.listeners) l(events as RecordedEvent[]);
  }
}

const position = (n: number) => `${String(n).padStart(20, '0')}/${String(n).padStart(20, '0')}`;

async function setUp() {
  const store = new SqliteReadStore(':memory:');
  await store.ensureCollections([{ name: 'api_keys', indexes: [] }]);
  const key = issueApiKey('test');
  // A document as projected before key management (no kind, expiry nor revocation): a secret key.
  await store.commit([{ collection: 'api_keys', id: key.keyId, doc: { id: key.keyId, account_id: 'acct_1', mode: 'test', secret_hash: key.secretHash } }]);
  const clock = new FixedClock(new Date('2026-11-23T10:00:00.000Z'));
  const auth = new AuthenticateApiKey(store, clock);
  await store.ensureCollections([{ name: 'api_key_usage', indexes: [] }]);
  const pipeline = new FakePipeline();
  auth.watchKeyChanges(pipeline);
  return { store, key, auth, pipeline, clock };
}

describe('AuthenticateApiKey: remembered key documents', () => {
  test('while the pipeline watches, a key is read from the store once; the secret is still checked on every request', async () => {
    const { key, auth } = await setUp();
    expect(await auth.authenticate(key.key)).toEqual({ accountId: 'acct_1', mode: 'test', keyId: key.keyId, kind: 'secret' });
    expect(await auth.authenticate(key.key)).toEqual({ accountId: 'acct_1', mode: 'test', keyId: key.keyId, kind: 'secret' });
    expect(auth.reads).toBe(1);
    // Same key id, another secret: refused although the document is remembered.
    const forged = key.key.slice(0, -1) + (key.key.endsWith('a') ? 'b' : 'a');
    expect(await auth.authenticate(forged)).toBeNull();
    // Same key id and secret in the other mode: refused.
    expect(await auth.authenticate(key.key.replace('sk_test_', 'sk_live_'))).toBeNull();
  });

  test('an unknown key id is never remembered: a key created afterwards works at once', async () => {
    const { store, auth } = await setUp();
    const later = issueApiKey('live');
    expect(await auth.authenticate(later.key)).toBeNull();
    await store.commit([{ collection: 'api_keys', id: later.keyId, doc: { id: later.keyId, account_id: 'acct_2', mode: 'live', secret_hash: later.secretHash } }]);
    expect(await auth.authenticate(later.key)).toEqual({ accountId: 'acct_2', mode: 'live', keyId: later.keyId, kind: 'secret' });
  });

  test('a key whose document changes or goes (an account event) is judged on the store from the next request on, and remembered again once the api_keys projection has committed', async () => {
    const { store, key, auth, pipeline } = await setUp();
    expect(await auth.authenticate(key.key)).not.toBeNull();
    // The pipeline reads a batch with an account event (shown before it is applied), then commits the
    // key's removal (what a revocation would do).
    pipeline.show([{ streamId: 'account-acct_1', position: position(7), type: 'account.key_revoked' }]);
    await store.commit([{ collection: 'api_keys', id: key.keyId, doc: null }]);
    expect(await auth.authenticate(key.key)).toBeNull();
    // A key document read while the projection is behind that event is not remembered.
    const other = issueApiKey('test');
    await store.commit([{ collection: 'api_keys', id: other.keyId, doc: { id: other.keyId, account_id: 'acct_1', mode: 'test', secret_hash: other.secretHash } }]);
    const before = auth.reads;
    await auth.authenticate(other.key);
    await auth.authenticate(other.key);
    expect(auth.reads - before).toBe(2);
    // Committed past it: remembered again.
    pipeline.committed = position(7);
    await auth.authenticate(other.key);
    await auth.authenticate(other.key);
    expect(auth.reads - before).toBe(3);
    expect(await auth.authenticate(key.key)).toBeNull();
  });

  test('without a watching pipeline (ROLE=api, or stopped) every request reads the store', async () => {
    const { store, key, auth, pipeline } = await setUp();
    pipeline.running = false;
    expect(await auth.authenticate(key.key)).not.toBeNull();
    await store.commit([{ collection: 'api_keys', id: key.keyId, doc: null }]);
    expect(await auth.authenticate(key.key)).toBeNull();
    expect(auth.reads).toBe(2);
  });

  test('events of other streams do not touch the memory', async () => {
    const { key, auth, pipeline } = await setUp();
    await auth.authenticate(key.key);
    pipeline.show([{ streamId: 'product-prod_1', position: position(3), type: 'product.created' }]);
    await auth.authenticate(key.key);
    expect(auth.reads).toBe(1);
  });
});

describe('AuthenticateApiKey: expiry, revocation, restricted keys and last use', () => {
  const doc = (keyId: string, secretHash: string, extra: Record<string, unknown> = {}) => ({
    id: keyId,
    account_id: 'acct_1',
    mode: 'live',
    kind: 'secret',
    name: 'Secret key',
    secret_hash: secretHash,
    last4: null,
    created_at: '2026-11-23T09:00:00.000Z',
    expires_at: null,
    revoked_at: null,
    ...extra,
  });

  test('a rolled key works until its expiry, judged on every request by the clock although its document is remembered', async () => {
    const { store, auth, clock } = await setUp();
    const m = newKeyMaterial();
    await store.commit([{ collection: 'api_keys', id: m.keyId, doc: doc(m.keyId, m.secretHash, { expires_at: '2026-11-23T11:00:00.000Z' }) }]);
    const key = formatApiKey('secret', 'live', m);
    expect(await auth.authenticate(key)).toMatchObject({ keyId: m.keyId });
    clock.set(new Date('2026-11-23T10:59:59.999Z'));
    expect(await auth.authenticate(key)).not.toBeNull();
    clock.set(new Date('2026-11-23T11:00:00.000Z'));
    expect(await auth.authenticate(key)).toBeNull();
    expect(auth.reads).toBe(1); // remembered all along: the expiry is not cached away
  });

  test('a revoked key is refused', async () => {
    const { store, auth } = await setUp();
    const m = newKeyMaterial();
    await store.commit([{ collection: 'api_keys', id: m.keyId, doc: doc(m.keyId, m.secretHash, { revoked_at: '2026-11-23T09:30:00.000Z' }) }]);
    expect(await auth.authenticate(formatApiKey('secret', 'live', m))).toBeNull();
  });

  test('a restricted key authenticates with its permissions, only with its rk_ prefix', async () => {
    const { store, auth } = await setUp();
    const m = newKeyMaterial();
    await store.commit([{ collection: 'api_keys', id: m.keyId, doc: doc(m.keyId, m.secretHash, { kind: 'restricted', permissions: { subscriptions: 'read' } }) }]);
    expect(await auth.authenticate(formatApiKey('restricted', 'live', m))).toEqual({
      accountId: 'acct_1',
      mode: 'live',
      keyId: m.keyId,
      kind: 'restricted',
      permissions: { subscriptions: 'read' },
    });
    expect(await auth.authenticate(formatApiKey('secret', 'live', m))).toBeNull();
  });

  test("a key's last use is written at most once a minute", async () => {
    const { store, key, auth, clock } = await setUp();
    const lastUse = async () => {
      await auth.usageSettled();
      return (await store.get<{ last_used_at: string }>('api_key_usage', key.keyId))?.last_used_at ?? null;
    };
    expect(await lastUse()).toBeNull();
    await auth.authenticate(key.key);
    expect(await lastUse()).toBe('2026-11-23T10:00:00.000Z');
    clock.advanceMs(59_000);
    await auth.authenticate(key.key);
    expect(await lastUse()).toBe('2026-11-23T10:00:00.000Z');
    clock.advanceMs(1_000);
    await auth.authenticate(key.key);
    expect(await lastUse()).toBe('2026-11-23T10:01:00.000Z');
    // A refused key records nothing.
    await auth.authenticate(key.key.slice(0, -1) + (key.key.endsWith('a') ? 'b' : 'a'));
    clock.advanceMs(120_000);
    await auth.authenticate(key.key.slice(0, -1) + (key.key.endsWith('a') ? 'b' : 'a'));
    expect(await lastUse()).toBe('2026-11-23T10:01:00.000Z');
  });
});
