import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chainEvents } from '#audit/domain/chain.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';

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
});
