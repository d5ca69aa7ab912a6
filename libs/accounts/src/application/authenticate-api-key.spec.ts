import { describe, expect, test } from '@jest/globals';
import type { RecordedEvent } from '#event-store/event-store.port.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { issueApiKey } from '../domain/api-key.js';
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
  await store.commit([{ collection: 'api_keys', id: key.keyId, doc: { id: key.keyId, account_id: 'acct_1', mode: 'test', secret_hash: key.secretHash } }]);
  const auth = new AuthenticateApiKey(store);
  const pipeline = new FakePipeline();
  auth.watchKeyChanges(pipeline);
  return { store, key, auth, pipeline };
}

describe('AuthenticateApiKey: remembered key documents', () => {
  test('while the pipeline watches, a key is read from the store once; the secret is still checked on every request', async () => {
    const { key, auth } = await setUp();
    expect(await auth.authenticate(key.key)).toEqual({ accountId: 'acct_1', mode: 'test' });
    expect(await auth.authenticate(key.key)).toEqual({ accountId: 'acct_1', mode: 'test' });
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
    expect(await auth.authenticate(later.key)).toEqual({ accountId: 'acct_2', mode: 'live' });
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
