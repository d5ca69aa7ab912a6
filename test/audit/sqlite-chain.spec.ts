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
});
