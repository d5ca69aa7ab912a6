import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '#cli/cli.js';
import { verifyConsistency } from '#audit/domain/merkle.js';
import { signedBytes, signHead, publicKeyId, rawPublicKey } from '#audit/domain/signed-head.js';
import { signSuccession, successionBytes, trustedKeyring } from '#audit/domain/key-succession.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { asText, runOfflineVerifier } from '../support/offline-verifier.js';

/**
 * Rotation of the audit signing key (docs/audit.md §3): `audit rotate-key` makes a new Ed25519 key that
 * signs every head from then on; the old key signs the statement naming its successor and stays
 * published; heads signed before still verify; verifiers (the CLI, the offline script) trust a key
 * reached from a trusted one through such statements and refuse a head signed by any other key.
 */

let t: TestApp;
let api: ReturnType<TestApp['as']>;
let account: string;
let keyAFile: string;
let keyBFile: string;
let keyA: { key_id: string; public_key_pem: string };
let headA: Record<string, any>;
let headB: Record<string, any>;

const verifyFile = runOfflineVerifier;

async function exportAccount(name: string): Promise<{ file: string; lines: string[] }> {
  const res = await api
    .get('/v1/audit/export?scope=account')
    .buffer(true)
    .parse(asText);
  expect(res.status).toBe(200);
  const file = join(t.dataDir, name);
  writeFileSync(file, res.body as string);
  return { file, lines: (res.body as string).trimEnd().split('\n') };
}

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runCli(args, { out: (l) => lines.push(l) }, { DATA_DIR: t.dataDir });
  return { code, out: lines.join('\n') };
}

async function subscribe(): Promise<void> {
  const s = await billingSetup(api);
  expect((await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') })).status).toBe(200);
}

beforeAll(async () => {
  t = await startTestApp({ embedded: true });
  const created = await t.account();
  account = created.id;
  api = t.as(created.test_key);
  await subscribe();
  keyA = (await api.get('/v1/audit/public_key')).body;
  keyAFile = join(t.dataDir, 'key-a.pem');
  writeFileSync(keyAFile, keyA.public_key_pem);
  headA = (await api.get('/v1/audit/head?fresh=true')).body;
}, 60_000);

afterAll(() => t?.close());

test('before any rotation the public key lists one key, current, with no succession', async () => {
  const pub = (await api.get('/v1/audit/public_key')).body;
  expect(pub.keys).toEqual([expect.objectContaining({ object: 'audit_key', key_id: keyA.key_id, status: 'current', valid_to: null, succession: null, public_key_pem: keyA.public_key_pem })]);
  expect(headA.key_id).toBe(keyA.key_id);
});

test('rotate-key: a new key signs the new heads; the old key stays published and signed the statement naming its successor', async () => {
  const rotated = await cli(['audit', 'rotate-key', '--json']);
  expect(rotated.code).toBe(0);
  const { previous, current } = JSON.parse(rotated.out);
  expect(previous).toMatchObject({ key_id: keyA.key_id, status: 'retired' });
  expect(current.key_id).not.toBe(keyA.key_id);

  const pub = (await api.get('/v1/audit/public_key')).body;
  // The same shape for the current key, which is the new one.
  expect(pub).toMatchObject({ object: 'audit_public_key', key_id: current.key_id, algorithm: 'Ed25519' });
  expect(publicKeyId(createPublicKey(pub.public_key_pem))).toBe(current.key_id);
  expect(pub.keys).toHaveLength(2);
  const [a, b] = pub.keys;
  expect(a).toMatchObject({ key_id: keyA.key_id, status: 'retired', public_key_pem: keyA.public_key_pem, valid_to: b.valid_from, succession: null });
  expect(b).toMatchObject({ key_id: current.key_id, status: 'current', valid_to: null, succession: { previous_key_id: keyA.key_id, key_id: current.key_id, public_key_raw: pub.public_key_raw, valid_from: b.valid_from } });
  // The statement is signed by A (and not by B): a holder of A trusts B.
  expect(verify(null, successionBytes(b.succession), createPublicKey(keyA.public_key_pem), Buffer.from(b.succession.signature, 'base64'))).toBe(true);
  expect(verify(null, successionBytes(b.succession), createPublicKey(pub.public_key_pem), Buffer.from(b.succession.signature, 'base64'))).toBe(false);
  expect([...trustedKeyring(keyA.public_key_pem, [b.succession]).keys()]).toEqual([keyA.key_id, current.key_id]);
  // The retired key's private half is gone from the store; the current one is sealed.
  const reads = t.app.get<ReadStore>(READ_STORE);
  expect((await reads.get<Record<string, unknown>>('audit_keys', `retired:${keyA.key_id}`))?.sealed_private_key).toBeNull();
  expect((await reads.get<Record<string, any>>('audit_keys', 'signing'))?.sealed_private_key).toMatchObject({ kid: expect.any(String) });
  keyBFile = join(t.dataDir, 'key-b.pem');
  writeFileSync(keyBFile, pub.public_key_pem);

  // The running service signs with B from now on (the rotation was made by another process, the CLI).
  await subscribe();
  headB = (await api.get('/v1/audit/head?fresh=true')).body;
  expect(headB.key_id).toBe(current.key_id);
  expect(headB.size).toBeGreaterThan(headA.size);
  expect(verify(null, signedBytes(headB as never), createPublicKey(pub.public_key_pem), Buffer.from(headB.signature, 'base64'))).toBe(true);
  expect(verify(null, signedBytes(headB as never), createPublicKey(keyA.public_key_pem), Buffer.from(headB.signature, 'base64'))).toBe(false);
});

test('old heads still verify with the retired key, and a consistency proof spans the rotation', async () => {
  const c = (await api.get(`/v1/audit/consistency?from_size=${headA.size}&to_size=${headB.size}`)).body;
  expect(c.signed_heads).toEqual([headA, headB]);
  const [a, b] = (await api.get('/v1/audit/public_key')).body.keys;
  expect(verify(null, signedBytes(headA as never), createPublicKey(a.public_key_pem), Buffer.from(headA.signature, 'base64'))).toBe(true);
  expect(verify(null, signedBytes(headB as never), createPublicKey(b.public_key_pem), Buffer.from(headB.signature, 'base64'))).toBe(true);
  expect(c.from_root).toBe(headA.merkle_root);
  expect(c.to_root).toBe(headB.merkle_root);
  expect(verifyConsistency(headA.size, headB.size, c.proof, headA.merkle_root, headB.merkle_root)).toBe(true);
});

test('offline: an export spanning the rotation verifies against the old key (through the statement) and the new one', async () => {
  const { file, lines } = await exportAccount('rotated.jsonl');
  const end = JSON.parse(lines[lines.length - 1]);
  expect(end.signed_head.key_id).not.toBe(keyA.key_id);
  expect(end.key_successions).toHaveLength(1);
  const withA = await verifyFile(file, keyAFile);
  expect(withA).toEqual({ code: 0, out: expect.stringContaining(`with key ${end.signed_head.key_id}, a successor of the trusted key ${keyA.key_id}`) });
  expect(withA.out).toMatch(/^OK: \d+ events of account /);
  expect((await verifyFile(file, keyBFile)).code).toBe(0);

  // Without the statement, a holder of A alone has no reason to trust B.
  const stripped = join(t.dataDir, 'no-succession.jsonl');
  writeFileSync(stripped, [...lines.slice(0, -1), JSON.stringify({ ...end, key_successions: [] })].join('\n') + '\n');
  const refused = await verifyFile(stripped, keyAFile);
  expect(refused.code).toBe(1);
  expect(refused.out).toContain(`the signed head is signed by key ${end.signed_head.key_id}, which is neither this public key`);
});

test('offline: a head forged with an unlisted key is refused, even with a statement the forger signed itself', async () => {
  const { lines } = await exportAccount('to-forge.jsonl');
  const end = JSON.parse(lines[lines.length - 1]);
  const forger = generateKeyPairSync('ed25519');
  const forgedId = publicKeyId(forger.publicKey);
  const { algorithm: _a, object: _o, signature: _s, ...body } = end.signed_head;
  const forged = { ...signHead({ ...body, key_id: forgedId }, forger.privateKey), object: 'audit_signed_head', algorithm: 'Ed25519' };
  // A statement "forged succeeds B", signed by the forger, not by B.
  const selfSigned = signSuccession({ previous_key_id: end.signed_head.key_id, key_id: forgedId, public_key_raw: rawPublicKey(forger.publicKey).toString('base64url'), valid_from: body.signed_at }, forger.privateKey);
  const file = join(t.dataDir, 'forged.jsonl');
  writeFileSync(file, [...lines.slice(0, -1), JSON.stringify({ ...end, signed_head: forged, key_successions: [...end.key_successions, selfSigned] })].join('\n') + '\n');
  for (const trusted of [keyAFile, keyBFile]) {
    const res = await verifyFile(file, trusted);
    expect(res.code).toBe(1);
    expect(res.out).toContain(`FAIL line ${lines.length}: the signed head is signed by key ${forgedId}, which is neither this public key`);
  }
  // The untouched export still verifies (the test can tell them apart).
  expect((await verifyFile(join(t.dataDir, 'to-forge.jsonl'), keyAFile)).code).toBe(0);
});

test('CLI audit verify: heads by the successor are trusted from the first key or a given key; a head by an unlisted key is refused', async () => {
  expect(await cli(['audit', 'verify', '--account', account])).toEqual({ code: 0, out: expect.stringMatching(/^all \d+ events of 1 accounts match$/) });
  expect((await cli(['audit', 'verify', '--account', account, '--trusted-key', keyAFile])).code).toBe(0);
  expect((await cli(['audit', 'verify', '--account', account, '--trusted-key', keyBFile])).code).toBe(0);
  // Trusting only an unrelated key: the stored heads are not trusted.
  const other = generateKeyPairSync('ed25519');
  const otherFile = join(t.dataDir, 'other.pem');
  writeFileSync(otherFile, other.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  await expect(cli(['audit', 'verify', '--account', account, '--trusted-key', otherFile])).rejects.toThrow(/which no succession statement reaches from the trusted key/);

  // A head in the store signed by an unlisted key (its id and signature its own).
  const forger = generateKeyPairSync('ed25519');
  const { algorithm: _a, object: _o, signature: _s, ...body } = headB;
  const forged = signHead({ ...body, key_id: publicKeyId(forger.publicKey) } as never, forger.privateKey);
  await t.app.get<ReadStore>(READ_STORE).commit([{ collection: 'audit_heads', id: `${account}:${forged.size}`, doc: { id: `${account}:${forged.size}`, ...forged } }]);
  await expect(cli(['audit', 'verify', '--account', account])).rejects.toThrow(new RegExp(`signed by key ${publicKeyId(forger.publicKey)}, which no succession statement reaches`));
  expect(readFileSync(keyAFile, 'utf8')).toBe(keyA.public_key_pem);
});
