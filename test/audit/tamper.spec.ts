import Database from 'better-sqlite3';
import { createPublicKey, verify } from 'node:crypto';
import { join } from 'node:path';
import { runCli } from '#cli/cli.js';
import { signedBytes } from '#audit/domain/signed-head.js';
import { merkleRoot, verifyConsistency, verifyInclusion } from '#audit/domain/merkle.js';
import { eventIdFromUuid } from '#shared/ids.js';
import { BLOCK_COLUMNS, type BlockRow, blockChainHashes, decodeBlock } from '#audit/sqlite-chain.mjs';
import { AuditLog } from '#audit/application/audit-log.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Tamper evidence (issue 33 §1, docs/audit.md): the service's embedded event store, edited behind its
 * back once it is closed, and `npm run cli -- audit verify` (its function here) naming what changed;
 * the signed heads, inclusion and consistency proofs over HTTP, checked with node:crypto only.
 */
let t: TestApp;
let dataDir: string;
let account: string;
let firstKey: string;
/** The account whose heads the HTTP test signed. */
let signedAccount: string;

/** `audit verify` over DATA_DIR: its exit code and what it printed. */
async function verifyStore(extra: string[] = []): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runCli(['audit', 'verify', ...extra], { out: (l) => lines.push(l) }, { DATA_DIR: dataDir });
  return { code, out: lines.join('\n') };
}

const eventsDb = () => new Database(join(dataDir, 'events.sqlite'));

beforeAll(async () => {
  t = await startTestApp({ embedded: true });
  dataDir = t.dataDir;
  const created = await t.account();
  account = created.id;
  firstKey = created.test_key;
  const api = t.as(created.test_key);
  const s = await billingSetup(api);
  for (let i = 0; i < 3; i++) {
    const res = await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') });
    expect(res.status).toBe(200);
  }
});

describe('signed heads and proofs over HTTP', () => {
  afterAll(() => t.close());

  test('a signed head verifies with the published public key; an event’s inclusion proof and a consistency proof between an old head and a new one verify', async () => {
    const created = await t.account('Second merchant');
    signedAccount = created.id;
    const api = t.as(created.test_key);
    const s = await billingSetup(api);
    const first = await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') });
    expect(first.status).toBe(200);

    const key = (await api.get('/v1/audit/public_key')).body;
    expect(key).toMatchObject({ object: 'audit_public_key', algorithm: 'Ed25519', key_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const publicKey = createPublicKey(key.public_key_pem);
    expect(Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url').toString('base64url')).toBe(key.public_key_raw);

    const oldHead = (await api.get('/v1/audit/head?fresh=true')).body;
    expect(oldHead).toMatchObject({ object: 'audit_signed_head', account: created.id, key_id: key.key_id });
    expect(oldHead.size).toBeGreaterThan(5);
    expect(verify(null, signedBytes(oldHead), publicKey, Buffer.from(oldHead.signature, 'base64'))).toBe(true);
    expect(verify(null, signedBytes({ ...oldHead, size: oldHead.size + 1 }), publicKey, Buffer.from(oldHead.signature, 'base64'))).toBe(false);
    // Without fresh: the latest signed head, as signed.
    expect((await api.get('/v1/audit/head')).body).toEqual(oldHead);

    // The subscription's creation is in the log: its leaf and audit path lead to the signed root.
    const events = (await api.get(`/v1/events?limit=100&object_id=${first.body.id}`)).body.data as Array<{ id: string; type: string }>;
    const createdEvent = events.find((e) => e.type === 'subscription.created')!;
    const proof = (await api.get(`/v1/audit/proof?event=${createdEvent.id}`)).body;
    expect(proof).toMatchObject({ object: 'audit_inclusion_proof', entry: { event: createdEvent.id, account: created.id }, tree_size: oldHead.size, signed_head: oldHead });
    expect(verifyInclusion(proof.entry.event_hash, proof.leaf_index, proof.tree_size, proof.audit_path, oldHead.merkle_root)).toBe(true);
    expect(verifyInclusion(proof.entry.event_hash, proof.leaf_index + 1, proof.tree_size, proof.audit_path, oldHead.merkle_root)).toBe(false);
    // Another account's event is not in this account's log.
    expect((await t.as((await t.account('Third')).test_key).get(`/v1/audit/proof?event=${createdEvent.id}`)).status).toBe(404);

    // Later history extends the old head: a consistency proof between the two signed roots.
    expect((await api.post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') })).status).toBe(200);
    const newHead = (await api.get('/v1/audit/head?fresh=true')).body;
    expect(newHead.size).toBeGreaterThan(oldHead.size);
    expect(verify(null, signedBytes(newHead), publicKey, Buffer.from(newHead.signature, 'base64'))).toBe(true);
    const consistency = (await api.get(`/v1/audit/consistency?from_size=${oldHead.size}&to_size=${newHead.size}`)).body;
    expect(consistency).toMatchObject({ from_root: oldHead.merkle_root, to_root: newHead.merkle_root, signed_heads: [oldHead, newHead] });
    expect(verifyConsistency(oldHead.size, newHead.size, consistency.proof, oldHead.merkle_root, newHead.merkle_root)).toBe(true);
    // A proof does not hold for a root the log never had.
    expect(verifyConsistency(oldHead.size, newHead.size, consistency.proof, merkleRoot(['00'.repeat(32)]), newHead.merkle_root)).toBe(false);
    expect((await api.get(`/v1/audit/consistency?from_size=${newHead.size + 1}`)).status).toBe(400);
  });

  test('at intervals, only the accounts whose chain moved are signed', async () => {
    const audit = t.app.get(AuditLog);
    expect(await audit.signMoved()).toBeGreaterThan(0); // the accounts never signed yet
    expect(await audit.signMoved()).toBe(0);
    const before = (await audit.latest(account))!;
    expect((await t.as(firstKey).post('/v1/customers', { email: `moved.${Date.now()}@example.com` })).status).toBe(200);
    expect(await audit.signMoved()).toBe(1);
    const after = (await audit.latest(account))!;
    expect(after.size).toBeGreaterThan(before.size);
    expect(after.size).toBe((await t.app.get<EventStore>(EVENT_STORE).auditChain!.chainHead(account)).size);
  });
});

describe('audit verify on the SQLite file, edited behind the service’s back', () => {
  test('untouched: every event matches, with the counts', async () => {
    const { code, out } = await verifyStore();
    expect(out).toMatch(/^all \d+ events of \d+ accounts match$/);
    expect(Number(/all (\d+) events/.exec(out)![1])).toBeGreaterThan(30);
    expect(code).toBe(0);
  });

  test('one event’s amount edited in its JSON data: the verifier names that event (evt_ id, stream, revision) and exits 1', async () => {
    const db = eventsDb();
    const row = db
      .prepare<[string], { event_id: string; stream_id: string; revision: number; data: string }>(
        `SELECT event_id, stream_id, revision, data FROM events WHERE type = 'charge.created' AND json_extract(metadata, '$.account_id') = ? ORDER BY seq LIMIT 1 OFFSET 1`,
      )
      .get(account)!;
    const data = JSON.parse(row.data);
    expect(data.amount).toBeDefined();
    db.prepare('UPDATE events SET data = ? WHERE event_id = ?').run(JSON.stringify({ ...data, amount: '1.00' }), row.event_id);
    db.close();

    const { code, out } = await verifyStore();
    expect(code).toBe(1);
    expect(out).toContain(`event ${eventIdFromUuid(row.event_id)} (stream ${row.stream_id}, revision ${row.revision}`);
    expect(out).toMatch(/^MISMATCH/);
    expect((await verifyStore(['--account', account])).code).toBe(1);

    // Put back as it was (the same JSON, keys in any order): it matches again.
    const back = eventsDb();
    back.prepare('UPDATE events SET data = ? WHERE event_id = ?').run(JSON.stringify(Object.fromEntries(Object.entries(data).reverse())), row.event_id);
    back.close();
    expect(await verifyStore()).toMatchObject({ code: 0 });
  });

  test('an event deleted: caught, named as missing from the log', async () => {
    const db = eventsDb();
    const row = db.prepare<[string], { event_id: string }>(`SELECT event_id FROM events WHERE type = 'subscription.created' AND json_extract(metadata, '$.account_id') = ? ORDER BY seq LIMIT 1 OFFSET 1`).get(account)!;
    db.prepare('DELETE FROM events WHERE event_id = ?').run(row.event_id);
    db.close();
    const { code, out } = await verifyStore();
    expect(code).toBe(1);
    expect(out).toContain(`MISSING: event ${eventIdFromUuid(row.event_id)}`);
  });

  test('the last event and its chain entry both deleted (the tail cut, the chain consistent without it): the signed head catches it', async () => {
    const db = eventsDb();
    // The account's last block (one per commit) loses its last entry, and its chain hash becomes the
    // one before that entry: a chain consistent without the event.
    const row = db.prepare<[string], BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM chain_blocks WHERE account = ? ORDER BY first_seq DESC LIMIT 1`).get(signedAccount)!;
    const block = decodeBlock(row);
    const before = db.prepare<[string, number], { chain_hash: Buffer }>('SELECT chain_hash FROM chain_blocks WHERE account = ? AND first_seq < ? ORDER BY first_seq DESC LIMIT 1').get(signedAccount, block.firstSeq);
    const last = { seq: block.firstSeq + block.count - 1, position: block.positions[block.count - 1] };
    if (block.count === 1) db.prepare('DELETE FROM chain_blocks WHERE account = ? AND first_seq = ?').run(signedAccount, block.firstSeq);
    else {
      const hashes = blockChainHashes(block, before?.chain_hash ?? Buffer.alloc(32));
      db.prepare('UPDATE chain_blocks SET count = ?, last_position = ?, positions = ?, event_ids = ?, event_hashes = ?, chain_hash = ? WHERE account = ? AND first_seq = ?').run(
        block.count - 1, block.positions[block.count - 2], row.positions.subarray(0, (block.count - 1) * 8), JSON.stringify(block.eventIds.slice(0, -1)),
        row.event_hashes.subarray(0, (block.count - 1) * 32), hashes[block.count - 2], signedAccount, block.firstSeq,
      );
    }
    db.prepare('DELETE FROM events WHERE seq = ?').run(last.position);
    db.close();
    const { code, out } = await verifyStore(['--account', signedAccount]);
    expect(out).toBe(`SIGNED HEAD MISMATCH: ${signedAccount} at size ${last.seq + 1}: the signed head has ${last.seq + 1} entries, the chain ${last.seq}`);
    expect(code).toBe(1);
  });

  test('an event slipped into the file afterwards: caught, named as unchained', async () => {
    const db = eventsDb();
    const id = '0badc0de-0000-4000-8000-000000000001';
    db.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, 0, ?, ?, ?)').run(
      id, 'charge-ch_forged', 'charge.created', JSON.stringify({ amount: '999999.00' }), JSON.stringify({ account_id: 'acct_forged', mode: 'live', occurred_at: '2026-11-23T10:00:00.000Z' }),
    );
    db.close();
    const { code, out } = await verifyStore(['--account', 'acct_forged']);
    expect(out).toBe(`UNCHAINED: event ${eventIdFromUuid(id)} (stream charge-ch_forged, revision 0, acct_forged) has no entry in the chain`);
    expect(code).toBe(1);
  });
});
