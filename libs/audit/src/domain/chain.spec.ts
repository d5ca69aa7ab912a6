import { canonicalEvent, chainEvents, chainHash, checkEntry, emptyHead, eventHash, GENESIS, PLATFORM_ACCOUNT } from './chain.js';

const event = (n: number, account: string | undefined, data: Record<string, unknown> = { amount: '10000.00', n }) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  type: 'subscription.created',
  streamId: `subscription-${n}`,
  revision: 0,
  data,
  metadata: { occurred_at: '2026-01-01T00:00:00.000Z', ...(account ? { account_id: account } : {}) },
  position: String(n).padStart(20, '0'),
});

describe('the audit chain', () => {
  it('hashes the RFC 8785 canonical JSON of id (as evt_), type, stream, revision, time, data and metadata', () => {
    const e = event(1, 'acct_a', { b: 1, a: 'x' });
    expect(canonicalEvent(e)).toBe(
      '{"data":{"a":"x","b":1},"id":"evt_00000000000040008000000000000001","metadata":{"account_id":"acct_a","occurred_at":"2026-01-01T00:00:00.000Z"},"revision":0,"stream":"subscription-1","time":"2026-01-01T00:00:00.000Z","type":"subscription.created"}',
    );
    // Key order does not matter; every hashed field does.
    expect(eventHash({ ...e, data: { a: 'x', b: 1 } })).toBe(eventHash(e));
    expect(eventHash({ ...e, revision: 1 })).not.toBe(eventHash(e));
    expect(eventHash({ ...e, data: { a: 'x', b: 2 } })).not.toBe(eventHash(e));
    expect(eventHash(e)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('chains per account from 64 zeros, platform events under _platform, idempotency records outside', () => {
    const events = [event(1, 'acct_a'), event(2, 'acct_b'), event(3, 'acct_a'), event(4, undefined), { ...event(5, 'acct_a'), streamId: 'idempotency-x' }];
    const { entries, heads } = chainEvents(events);
    expect(entries.map((e) => [e.account, e.seq])).toEqual([
      ['acct_a', 0],
      ['acct_b', 0],
      ['acct_a', 1],
      [PLATFORM_ACCOUNT, 0],
    ]);
    expect(entries[0].prev).toBe(GENESIS);
    expect(entries[2].prev).toBe(entries[0].chain_hash);
    expect(entries[2].chain_hash).toBe(chainHash(entries[0].chain_hash, eventHash(events[2])));
    expect(heads.get('acct_a')).toEqual({ account: 'acct_a', size: 2, chain_hash: entries[2].chain_hash });
    // Continuing from the heads gives what chaining everything at once gives.
    const more = chainEvents([event(6, 'acct_a')], heads).entries[0];
    expect(chainEvents([...events, event(6, 'acct_a')]).entries[4]).toEqual(more);
  });

  it('checks an entry: passes the untouched, names an altered event, a missing event, a broken link', () => {
    const events = [event(1, 'acct_a'), event(2, 'acct_a')];
    const [first, second] = chainEvents(events).entries;
    const afterFirst = { account: 'acct_a', size: 1, chain_hash: first.chain_hash };
    expect(checkEntry(emptyHead('acct_a'), first, events[0])).toBeNull();
    expect(checkEntry(afterFirst, second, events[1])).toBeNull();
    expect(checkEntry(afterFirst, second, { ...events[1], data: { amount: '1.00', n: 2 } })).toMatchObject({ kind: 'event_altered', event_id: events[1].id, stream: 'subscription-2', revision: 0 });
    expect(checkEntry(afterFirst, second, null)).toMatchObject({ kind: 'event_missing', event_id: events[1].id, seq: 1 });
    expect(checkEntry(emptyHead('acct_a'), second, events[1])).toMatchObject({ kind: 'entry_missing', seq: 0 });
    expect(checkEntry(afterFirst, { ...second, prev: GENESIS }, events[1])).toMatchObject({ kind: 'entry_altered' });
    expect(checkEntry(afterFirst, { ...second, event_hash: eventHash({ ...events[1], revision: 5 }) }, events[1])).toMatchObject({ kind: 'entry_altered' });
    // Moved to another account's chain: altered too.
    expect(checkEntry(afterFirst, second, { ...events[1], metadata: { ...events[1].metadata, account_id: 'acct_b' } })).toMatchObject({ kind: 'event_altered' });
  });
});
