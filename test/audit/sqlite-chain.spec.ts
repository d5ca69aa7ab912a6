import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chainEvents, eventHash } from '#audit/domain/chain.js';
import { verifyAuditChain } from '#audit/application/verify-chain.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { decodePosition } from '#event-store/positions.js';

const ev = (account: string, n: number) => ({ id: randomUUID(), type: 'thing.happened', data: { amount: `${n}.00` }, metadata: { account_id: account, occurred_at: '2026-01-01T00:00:00.000Z' } });

describe('the audit chain on the embedded SQLite event store', () => {
  test.each(['thread', 'inline'] as const)('events stored before the chain existed are chained at open, in log order, and appends continue (writer %s)', async (writer) => {
    const file = join(mkdtempSync(join(tmpdir(), 'chain-backlog-')), 'events.sqlite');
    const before = new SqliteEventStore(file, { writer, auditChain: false });
    await before.append('thing-1', [ev('acct_a', 1), ev('acct_b', 2)], 'no_stream');
    await before.append('thing-2', [ev('acct_a', 3)], 'no_stream');
    await before.append('idempotency-k', [ev('acct_a', 4)], 'no_stream');
    expect(await before.auditChain.chainHead('acct_a')).toMatchObject({ size: 0 });
    await before.close();

    const after = new SqliteEventStore(file, { writer });
    await after.append('thing-3', [ev('acct_a', 5)], 'no_stream');
    const all = await after.readAll({ maxCount: 100 });
    const expected = chainEvents(all).entries.filter((e) => e.account === 'acct_a');
    expect(expected).toHaveLength(3); // the idempotency record is not chained
    expect(await after.auditChain.readChain('acct_a', 0, 10)).toEqual(expected);
    expect(await after.auditChain.chainHead('acct_b')).toMatchObject({ size: 1 });
    await after.close();
  });

  test.each(['thread', 'inline'] as const)('the chain equals the one recomputed from the stored events, whatever the expected revision (prepared before the transaction or not; writer %s)', async (writer) => {
    const file = join(mkdtempSync(join(tmpdir(), 'chain-prepared-')), 'events.sqlite');
    const store = new SqliteEventStore(file, { writer });
    const odd = (n: number) => ({ ...ev('acct_a', n), data: { amount: `${n}.00`, nested: { z: 1, a: [true, null, 'ñ'], m: { b: 2, a: 1 } }, later: undefined } });
    await store.append('thing-1', [odd(1), odd(2)], 'no_stream'); // revisions known: hashed before the transaction
    await store.append('thing-1', [odd(3)], 1); // known from the expected revision
    await store.append('thing-1', [odd(4), odd(5)], 'any'); // unknown: hashed in the transaction
    await store.appendMany([{ streamId: 'thing-2', expected: 'no_stream', events: [odd(6)] }, { streamId: 'thing-1', expected: 4, events: [odd(7)] }]);
    // A conflict rolls its part back: the chain goes on from the last committed entry.
    await expect(store.append('thing-1', [odd(8)], 0)).rejects.toThrow();
    await store.append('thing-3', [{ ...ev('acct_a', 9), data: { bad: Number.NaN } }], 'no_stream'); // canonical JSON refuses NaN: not prepared, stored as null
    const all = await store.readAll({ maxCount: 100 });
    const expected = chainEvents(all).entries.filter((e) => e.account === 'acct_a');
    expect(expected).toHaveLength(8);
    expect(await store.auditChain.readChain('acct_a', 0, 20)).toEqual(expected);
    await store.close();
  });

  test.each(['thread', 'inline'] as const)('a group of appends over several accounts is one block per account; every entry is found by its event, a refused append leaves none (writer %s)', async (writer) => {
    const file = join(mkdtempSync(join(tmpdir(), 'chain-blocks-')), 'events.sqlite');
    const store = new SqliteEventStore(file, { writer });
    await store.append('thing-0', [ev('acct_a', 0)], 'no_stream');
    // Appended in the same turn: one group, one transaction; acct_a and acct_b interleave in it.
    const results = await Promise.allSettled([
      store.append('thing-1', [ev('acct_a', 1), ev('acct_b', 2)], 'no_stream'),
      store.append('thing-0', [ev('acct_a', 3)], 5), // refused (wrong expected revision): no entry
      store.appendMany([{ streamId: 'thing-2', expected: 'no_stream', events: [ev('acct_b', 4)] }, { streamId: 'thing-3', expected: 'no_stream', events: [ev('acct_a', 5)] }]),
      store.append('idempotency-x', [ev('acct_a', 6)], 'no_stream'), // not chained
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const all = await store.readAll({ maxCount: 100 });
    const recomputed = chainEvents(all).entries;
    expect(recomputed).toHaveLength(5);
    for (const account of ['acct_a', 'acct_b']) {
      expect(await store.auditChain.readChain(account, 0, 10)).toEqual(recomputed.filter((e) => e.account === account));
      // From the middle of a block, and a page of one.
      expect(await store.auditChain.readChain(account, 1, 1)).toEqual(recomputed.filter((e) => e.account === account).slice(1, 2));
    }
    for (const entry of recomputed) expect(await store.auditChain.chainEntry(entry.event_id)).toEqual(entry);
    expect(await store.auditChain.chainEntry(all.find((e) => e.streamId === 'idempotency-x')!.id)).toBeNull();
    await store.close();
    const db = new Database(file, { readonly: true });
    // acct_a: the first commit's block, then one for the group; acct_b: the group's.
    expect(db.prepare('SELECT account, first_seq, count FROM chain_blocks ORDER BY account, first_seq').all()).toEqual([
      { account: 'acct_a', first_seq: 0, count: 1 },
      { account: 'acct_a', first_seq: 1, count: 2 },
      { account: 'acct_b', first_seq: 0, count: 2 },
    ]);
    db.close();
  });

  test('a store whose chain is still a row per event: the rows become blocks at open, the same entries, and appends go on from them', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chain-rows-')), 'events.sqlite');
    const old = new SqliteEventStore(file, { writer: 'inline' });
    await old.append('thing-1', [ev('acct_a', 1), ev('acct_b', 2)], 'no_stream');
    await old.append('thing-2', [ev('acct_a', 3)], 'no_stream');
    const entries = chainEvents(await old.readAll({ maxCount: 100 })).entries;
    await old.close();
    // The earlier layout, as that version wrote it.
    const db = new Database(file);
    db.exec(`DROP TABLE chain_blocks;
      CREATE TABLE chain (position INTEGER PRIMARY KEY, account TEXT NOT NULL, seq INTEGER NOT NULL, event_id TEXT NOT NULL, event_hash BLOB NOT NULL, chain_hash BLOB NOT NULL);
      CREATE UNIQUE INDEX chain_account_seq ON chain (account, seq);`);
    const insert = db.prepare('INSERT INTO chain (position, account, seq, event_id, event_hash, chain_hash) VALUES (?, ?, ?, ?, ?, ?)');
    for (const e of entries) insert.run(Number(decodePosition(e.position).commit), e.account, e.seq, e.event_id, Buffer.from(e.event_hash, 'hex'), Buffer.from(e.chain_hash, 'hex'));
    db.close();

    const store = new SqliteEventStore(file, { writer: 'thread' });
    await store.append('thing-3', [ev('acct_a', 4)], 'no_stream');
    const all = chainEvents(await store.readAll({ maxCount: 100 })).entries;
    expect(all.slice(0, 3)).toEqual(entries);
    for (const account of ['acct_a', 'acct_b']) expect(await store.auditChain.readChain(account, 0, 10)).toEqual(all.filter((e) => e.account === account));
    expect((await verifyAuditChain(store)).ok).toBe(true);
    await store.close();
    const after = new Database(file, { readonly: true });
    expect(after.prepare("SELECT name FROM sqlite_master WHERE name = 'chain'").get()).toBeUndefined();
    after.close();
  });

  test('an event hash changed inside a block (not its last entry) breaks the block\'s last link: the verifier names it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chain-inside-')), 'events.sqlite');
    const store = new SqliteEventStore(file, { writer: 'inline' });
    await store.append('thing-1', [ev('acct_a', 1), ev('acct_a', 2), ev('acct_a', 3)], 'no_stream');
    const events = await store.readAll({ maxCount: 100 });
    await store.close();
    // The second event's amount and its stored hash both rewritten (the hash made for the new text).
    const db = new Database(file);
    const forged = { ...events[1], data: { amount: '999.00' } };
    db.prepare('UPDATE events SET data = ? WHERE event_id = ?').run(JSON.stringify(forged.data), forged.id);
    const row = db.prepare<[], { event_hashes: Buffer }>("SELECT event_hashes FROM chain_blocks WHERE account = 'acct_a'").get()!;
    Buffer.from(eventHash(forged), 'hex').copy(row.event_hashes, 32);
    db.prepare("UPDATE chain_blocks SET event_hashes = ? WHERE account = 'acct_a'").run(row.event_hashes);
    db.close();
    const reopened = new SqliteEventStore(file, { writer: 'inline' });
    const report = await verifyAuditChain(reopened);
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({ kind: 'entry_altered', account: 'acct_a', seq: 2 });
    await reopened.close();
  });

  test('two connections (two processes) appending to one file keep one chain per account: neither forks it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chain-two-')), 'events.sqlite');
    const a = new SqliteEventStore(file, { writer: 'thread' });
    const b = new SqliteEventStore(file, { writer: 'thread' });
    // Interleaved groups from both, the same accounts, each store's head cache going stale in turn.
    for (let round = 0; round < 20; round++) {
      await Promise.all([
        a.append(`a-${round}`, [ev('acct_a', round), ev('acct_b', round)], 'no_stream'),
        b.append(`b-${round}`, [ev('acct_a', 100 + round)], 'no_stream'),
        b.append(`c-${round}`, [ev('acct_b', 200 + round), ev('acct_a', 300 + round)], 'no_stream'),
      ]);
    }
    const recomputed = chainEvents(await a.readAll({ maxCount: 1000 })).entries;
    expect(recomputed).toHaveLength(100);
    for (const account of ['acct_a', 'acct_b']) {
      const mine = recomputed.filter((e) => e.account === account);
      expect(await a.auditChain.readChain(account, 0, 1000)).toEqual(mine);
      expect(await b.auditChain.chainHead(account)).toEqual({ account, size: mine.length, chain_hash: mine[mine.length - 1].chain_hash });
    }
    expect(await verifyAuditChain(b)).toMatchObject({ ok: true, events: 100, accounts: 2 });
    await a.close();
    await b.close();
  });
});
