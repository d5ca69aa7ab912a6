import { randomUUID } from 'node:crypto';
import { chainEvents } from '#audit/domain/chain.js';
import { FollowerAuditChain } from '#audit/follower-chain.js';
import { EventStoreDbEventStore } from '#event-store/eventstoredb-event-store.js';
import { EventStoreDbStandIn } from '../support/eventstoredb-stand-in.js';

const ev = (account: string, n: number) => ({ id: randomUUID(), type: 'thing.happened', data: { amount: `${n}.00` }, metadata: { account_id: account, occurred_at: '2026-01-01T00:00:00.000Z' } });

describe('the chaining follower (EventStoreDB: no multi-stream transaction; docs/audit.md)', () => {
  test('two followers on one log racing never fork a chain: every event chained once, in log order, linked', async () => {
    const server = new EventStoreDbStandIn();
    const store = new EventStoreDbEventStore('esdb://stand-in.invalid:2113?tls=false', server.client());
    for (let i = 0; i < 30; i++) await store.append(`thing-${i}`, [ev(i % 3 === 0 ? 'acct_a' : 'acct_b', i)], 'no_stream');
    const one = new FollowerAuditChain(store);
    const two = new FollowerAuditChain(store);
    await Promise.all([one.catchUp(), two.catchUp(), one.catchUp()]);
    await store.append('thing-late', [ev('acct_a', 99)], 'no_stream');
    await Promise.all([two.catchUp(), one.catchUp()]);

    const events = (await store.readAll({ maxCount: 1000 })).filter((e) => e.streamId.startsWith('thing-'));
    const expected = chainEvents(events).entries;
    for (const account of ['acct_a', 'acct_b']) {
      const mine = expected.filter((e) => e.account === account);
      expect(await one.readChain(account, 0, 100)).toEqual(mine);
      expect(await two.readChain(account, 0, 100)).toEqual(mine);
      expect(await new FollowerAuditChain(store).chainHead(account)).toEqual({ account, size: mine.length, chain_hash: mine[mine.length - 1].chain_hash });
    }
    expect(await one.chainAccounts()).toEqual(['acct_a', 'acct_b']);
    await store.close();
  });
});
