import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReadStore } from '#read-store/read-store.port.js';
import { masterKeyId, MissingMasterKeyError, SealingError, SecretSealer } from '#shared/sealing.js';
import { loadConfig } from './config.js';
import { masterKeyForStart, rewrapSealedSecrets, SEALED_SECRETS, storedMasterKeyIds } from './sealing.module.js';
import { createReadStore } from './stores.js';

const keyOf = () => randomBytes(32);
const ring = (current: Buffer, ...previous: Buffer[]) => new SecretSealer(current, masterKeyId(current), previous.map((key) => ({ key, kid: masterKeyId(key) })));

let reads: ReadStore;
let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'sealing-module-'));
  reads = createReadStore(loadConfig({ DATA_DIR: dataDir }));
});
afterEach(() => reads.close());

async function seedUnder(sealer: SecretSealer) {
  await reads.ensureCollections([{ name: SEALED_SECRETS, indexes: [] }, { name: 'member_credentials', indexes: [] }, { name: 'audit_keys', indexes: [] }]);
  const a = sealer.seal('whsec_one');
  await reads.commit([
    { collection: SEALED_SECRETS, id: 'whsec:we_1:a', doc: { id: 'whsec:we_1:a', purpose: 'webhook_signing_secret', kid: a.kid, sealed: a, created_at: 'x' } },
    { collection: 'member_credentials', id: 'cred_totp', doc: { id: 'cred_totp', kind: 'totp', sealed: sealer.seal('JBSWY3DPEHPK3PXP'), last_step: 7 } },
    { collection: 'member_credentials', id: 'cred_pw', doc: { id: 'cred_pw', kind: 'password', hash: '$argon2id$…' } },
    { collection: 'audit_keys', id: 'signing', doc: { id: 'signing', sealed_private_key: sealer.seal('-----BEGIN PRIVATE KEY-----') } },
  ]);
}

test('rewrap: every sealed secret in every location moves to the new key; the new key alone opens them; other fields untouched', async () => {
  const old = keyOf();
  const next = keyOf();
  await seedUnder(ring(old));
  expect([...(await storedMasterKeyIds(reads)).entries()]).toEqual([[masterKeyId(old), 3]]);
  expect(await rewrapSealedSecrets(reads, ring(next, old))).toEqual({ rewrapped: 3, already: 0 });
  expect([...(await storedMasterKeyIds(reads)).entries()]).toEqual([[masterKeyId(next), 3]]);
  const only = ring(next);
  const secret = await reads.get<{ kid: string; sealed: never }>(SEALED_SECRETS, 'whsec:we_1:a');
  expect(secret!.kid).toBe(masterKeyId(next));
  expect(only.open(secret!.sealed)).toBe('whsec_one');
  const totp = await reads.get<{ sealed: never; last_step: number }>('member_credentials', 'cred_totp');
  expect(only.open(totp!.sealed)).toBe('JBSWY3DPEHPK3PXP');
  expect(totp!.last_step).toBe(7);
  expect(only.open((await reads.get<{ sealed_private_key: never }>('audit_keys', 'signing'))!.sealed_private_key)).toBe('-----BEGIN PRIVATE KEY-----');
  expect(await reads.get('member_credentials', 'cred_pw')).toEqual({ id: 'cred_pw', kind: 'password', hash: '$argon2id$…' });
  expect(await rewrapSealedSecrets(reads, ring(next, old))).toEqual({ rewrapped: 0, already: 3 });
});

test('rewrap loses to a write racing with it and re-wraps what that write left (a sign-in moving last_step is kept)', async () => {
  const old = keyOf();
  const next = keyOf();
  await seedUnder(ring(old));
  let raced = false;
  const racing: ReadStore = Object.create(reads, {
    swap: {
      value: async (collection: string, id: string, expected: never, doc: Record<string, unknown>) => {
        if (!raced && id === 'cred_totp') {
          raced = true;
          const current = (await reads.get<Record<string, unknown>>(collection, id))!;
          await reads.commit([{ collection, id, doc: { ...current, last_step: 8 } }]);
        }
        return reads.swap(collection, id, expected, doc);
      },
    },
  });
  expect(await rewrapSealedSecrets(racing, ring(next, old))).toEqual({ rewrapped: 3, already: 0 });
  const totp = await reads.get<{ sealed: never; last_step: number }>('member_credentials', 'cred_totp');
  expect(totp!.last_step).toBe(8);
  expect(ring(next).open(totp!.sealed)).toBe('JBSWY3DPEHPK3PXP');
});

test('at start: no key and sealed secrets is a refusal naming where it looked; another key is a refusal naming the ids; empty stores make a key outside DATA_DIR', async () => {
  const config = loadConfig({ DATA_DIR: dataDir });
  const made = await masterKeyForStart(config, reads);
  expect(made.created).toBe(true);
  expect(made.path).toBe(join(`${dataDir}.keys`, 'master.key'));
  await seedUnder(ring(keyOf()));
  await expect(masterKeyForStart(config, reads)).rejects.toThrow(SealingError);
  await expect(masterKeyForStart(config, reads)).rejects.toThrow(/which this process was not given \(it has [0-9a-f]{16}, from the key file/);
  const elsewhere = loadConfig({ DATA_DIR: dataDir, KEYS_DIR: join(dataDir, '..', 'nowhere') });
  await expect(masterKeyForStart(elsewhere, reads)).rejects.toThrow(MissingMasterKeyError);
  await expect(masterKeyForStart(elsewhere, reads)).rejects.toThrow(/MASTER_KEY is not set and there is no key file at .*nowhere\/master\.key/);
});
