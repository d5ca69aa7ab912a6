import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '#cli/cli.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { asText, runOfflineVerifier } from '../support/offline-verifier.js';

/**
 * The auditors' export (issue 33 §2, docs/audit.md §6): an account's or a subscription's history as
 * JSON Lines over HTTP and the CLI, checked offline by scripts/verify-audit-export.mjs run as a child
 * process with node (no service code), against the published public key; altered, removed and
 * wrongly keyed exports refused.
 */

let t: TestApp;
let key: string;
let account: string;
let subscription: string;
let keyFile: string;

/** Runs the offline verifier: its exit code and what it printed. */
const verifyFile = (file: string, publicKey = keyFile) => runOfflineVerifier(file, publicKey);

/** GET /v1/audit/export?… as text, written to a file in the data directory. */
async function exportOverHttp(query: string, name: string): Promise<{ file: string; lines: string[]; status: number; type: string }> {
  const res = await t
    .as(key)
    .get(`/v1/audit/export?${query}`)
    .buffer(true)
    .parse(asText);
  const file = join(t.dataDir, name);
  writeFileSync(file, res.body as string);
  return { file, lines: (res.body as string).trimEnd().split('\n'), status: res.status, type: String(res.headers['content-type']) };
}

beforeAll(async () => {
  t = await startTestApp({ embedded: true });
  const created = await t.account();
  key = created.test_key;
  account = created.id;
  const api = t.as(key);
  const s = await billingSetup(api);
  for (let i = 0; i < 3; i++) {
    const res = await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') });
    expect(res.status).toBe(200);
    subscription = res.body.id;
  }
  const pub = (await api.get('/v1/audit/public_key')).body;
  keyFile = join(t.dataDir, 'public-key.pem');
  writeFileSync(keyFile, pub.public_key_pem);
}, 60_000);

afterAll(() => t?.close());

test('an account’s export verifies offline: every event hashed, the chain linked to the signed head', async () => {
  const { file, lines, status, type } = await exportOverHttp(`scope=account&id=${account}`, 'account.jsonl');
  expect(status).toBe(200);
  expect(type).toContain('application/x-ndjson');
  const header = JSON.parse(lines[0]);
  expect(header).toMatchObject({ kind: 'header', format: 'audit-export', version: 1, account, tie: 'chain' });
  const end = JSON.parse(lines[lines.length - 1]);
  expect(end.kind).toBe('signed_head');
  expect(end.signed_head.size).toBe(lines.length - 2);
  expect(end.events).toBe(lines.length - 2);
  const first = JSON.parse(lines[1]);
  expect(first.chain).toMatchObject({ seq: 0, prev: '0'.repeat(64) });
  expect(Object.keys(first.event).sort()).toEqual(['data', 'id', 'metadata', 'revision', 'stream', 'time', 'type']);
  const result = await verifyFile(file);
  expect(result.out).toMatch(new RegExp(`^OK: ${lines.length - 2} events of account ${account}`));
  expect(result.code).toBe(0);
});

test('a subscription’s export verifies: each event proven in the signed tree', async () => {
  const { file, lines } = await exportOverHttp(`scope=subscription&id=${subscription}`, 'subscription.jsonl');
  const events = lines.slice(1, -1).map((l) => JSON.parse(l));
  expect(events.length).toBeGreaterThan(0);
  expect(JSON.parse(lines[0]).tie).toBe('merkle');
  // Only what belongs to the subscription, and fewer than the account's events.
  expect(events.some((e) => e.event.stream === `subscription-${subscription}`)).toBe(true);
  expect(events.every((e) => JSON.stringify(e.event).includes(subscription))).toBe(true);
  expect(events.every((e) => Array.isArray(e.proof.audit_path))).toBe(true);
  const result = await verifyFile(file);
  expect(result.out).toMatch(/^OK: \d+ events of subscription sub_/);
  expect(result.code).toBe(0);
});

test('editing one byte of an amount: the verifier names that event', async () => {
  const { lines } = await exportOverHttp('', 'edited-source.jsonl');
  const index = lines.findIndex((l, i) => i > 0 && /"amount":"\d/.test(l));
  expect(index).toBeGreaterThan(0);
  const eventId = JSON.parse(lines[index]).event.id;
  const edited = [...lines];
  edited[index] = lines[index].replace(/"amount":"(\d)/, (_m, d: string) => `"amount":"${d === '9' ? '8' : String(Number(d) + 1)}`);
  expect(edited[index]).not.toBe(lines[index]);
  const file = join(t.dataDir, 'edited.jsonl');
  writeFileSync(file, `${edited.join('\n')}\n`);
  const result = await verifyFile(file);
  expect(result.code).toBe(1);
  expect(result.out).toContain(`FAIL line ${index + 1} (event ${eventId})`);
  expect(result.out).toContain('does not match its hash');
});

test('removing a line is caught, in the middle and at the end', async () => {
  const { lines } = await exportOverHttp('scope=account', 'removed-source.jsonl');
  const middle = join(t.dataDir, 'removed-middle.jsonl');
  writeFileSync(middle, `${[...lines.slice(0, 3), ...lines.slice(4)].join('\n')}\n`);
  const r1 = await verifyFile(middle);
  expect(r1.code).toBe(1);
  expect(r1.out).toMatch(/FAIL line 4 .*entry 2 is missing/);
  const last = join(t.dataDir, 'removed-last.jsonl');
  writeFileSync(last, `${[...lines.slice(0, -2), lines[lines.length - 1]].join('\n')}\n`);
  const r2 = await verifyFile(last);
  expect(r2.code).toBe(1);
  expect(r2.out).toContain('FAIL');
  // A subset: a removed event no longer adds up to the count before the signed head.
  const sub = await exportOverHttp(`scope=subscription&id=${subscription}`, 'sub-source.jsonl');
  const subRemoved = join(t.dataDir, 'sub-removed.jsonl');
  writeFileSync(subRemoved, `${[sub.lines[0], ...sub.lines.slice(2)].join('\n')}\n`);
  const r3 = await verifyFile(subRemoved);
  expect(r3.code).toBe(1);
  expect(r3.out).toContain('a line was removed');
});

test('a forged event with its hashes recomputed is not in the signed tree', async () => {
  const { lines } = await exportOverHttp(`scope=subscription&id=${subscription}`, 'forged-source.jsonl');
  const line = JSON.parse(lines[1]);
  const event = { ...line.event, data: { ...line.event.data, forged: true } };
  const eventHash = createHash('sha256').update(canonicalize(event) as string).digest('hex');
  const chainHash = createHash('sha256').update(Buffer.from(line.chain.prev, 'hex')).update(Buffer.from(eventHash, 'hex')).digest('hex');
  const forged = JSON.stringify({ ...line, event, chain: { ...line.chain, event_hash: eventHash, chain_hash: chainHash } });
  const file = join(t.dataDir, 'forged.jsonl');
  writeFileSync(file, `${[lines[0], forged, ...lines.slice(2)].join('\n')}\n`);
  const result = await verifyFile(file);
  expect(result.code).toBe(1);
  expect(result.out).toContain(`FAIL line 2 (event ${line.event.id}): the inclusion proof does not lead to the signed tree`);
});

test('a wrong public key is refused', async () => {
  const { generateKeyPairSync } = await import('node:crypto');
  const other = join(t.dataDir, 'other-key.pem');
  writeFileSync(other, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const { file } = await exportOverHttp('scope=account', 'wrong-key.jsonl');
  expect((await verifyFile(file)).code).toBe(0);
  const result = await verifyFile(file, other);
  expect(result.code).toBe(1);
  // The head names a key that is neither the one given nor one it leads to (docs/audit.md §3).
  expect(result.out).toContain('which is neither this public key');
  // The right key with the head altered: its signature does not verify.
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  const end = JSON.parse(lines[lines.length - 1]);
  const altered = join(t.dataDir, 'altered-head.jsonl');
  writeFileSync(altered, `${[...lines.slice(0, -1), JSON.stringify({ ...end, signed_head: { ...end.signed_head, signed_at: '2020-01-01T00:00:00.000Z' } })].join('\n')}\n`);
  const tampered = await verifyFile(altered);
  expect(tampered.code).toBe(1);
  expect(tampered.out).toContain('does not verify with this public key');
});

test('a time range and an event range: a subset proven in the tree; bad bounds refused', async () => {
  const all = (await exportOverHttp('', 'all.jsonl')).lines.slice(1, -1).map((l) => JSON.parse(l));
  const { file, lines } = await exportOverHttp(`from=${all[2].event.id}&to=${all[4].event.id}`, 'range.jsonl');
  expect(lines.slice(1, -1).map((l) => JSON.parse(l).event.id)).toEqual([all[2].event.id, all[3].event.id, all[4].event.id]);
  expect((await verifyFile(file)).code).toBe(0);
  const future = await exportOverHttp('from=2999-01-01T00:00:00Z', 'future.jsonl');
  expect(future.lines).toHaveLength(2);
  expect((await verifyFile(future.file)).code).toBe(0);
  expect((await t.as(key).get('/v1/audit/export?from=yesterday')).status).toBe(400);
  expect((await t.as(key).get('/v1/audit/export?scope=subscription&id=sub_doesnotexist')).status).toBe(404);
});

test('the CLI writes the same kind of export, and it verifies', async () => {
  let text = '';
  const code = await runCli(['audit', 'export', '--account', account, '--subscription', subscription], { out: () => undefined, write: async (s) => void (text += s) }, { DATA_DIR: t.dataDir });
  expect(code).toBe(0);
  const file = join(t.dataDir, 'cli.jsonl');
  writeFileSync(file, text);
  expect(readFileSync(file, 'utf8').split('\n')[0]).toContain('"scope":{"type":"subscription"');
  const result = await verifyFile(file);
  expect(result.out).toMatch(/^OK:/);
});
