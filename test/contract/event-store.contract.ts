import { randomUUID } from 'node:crypto';
import { eventHash, GENESIS, PLATFORM_ACCOUNT } from '#audit/domain/chain.js';
import { type EventStore, type ExpectedRevision, expectedRevisionAfter, type NewEvent, type RecordedEvent, WrongExpectedRevisionError } from '#event-store/event-store.port.js';


export interface EventStoreContractOptions {
  /**
   * Writes, with the engine's own client, what `$all` holds besides our events (EventStoreDB: a
   * system event such as `$metadata` and a link event `$>` pointing at `ourStream`). Adapters whose
   * engine has no such events (SQLite) leave it out: the case then checks that only our events come back.
   */
  writeForeignEvents?: (ourStream: string) => Promise<void>;
  /**
   * Why this adapter's audit chain (docs/audit.md) is not held to the contract here, when it is not:
   * the chain cases are then skipped with that reason in their name.
   */
  skipAuditChain?: string;
}

/**
 * The behaviour every event store adapter must have. Each adapter's spec file calls this.
 * `makeStore` opens a NEW adapter instance on the SAME storage each time it is called (a second
 * process, as far as the adapter can tell).
 */
export function eventStoreContract(makeStore: () => Promise<EventStore>, options: EventStoreContractOptions = {}): void {
  let store: EventStore;
  const run = randomUUID().slice(0, 8);
  let n = 0;
  const stream = (category = 'contract') => `${category}-${run}_${++n}`;
  const event = (type: string, data: Record<string, unknown> = {}): NewEvent => ({
    id: randomUUID(),
    type,
    data,
    metadata: { account_id: 'acct_1', mode: 'test', occurred_at: '2026-01-01T00:00:00.000Z', correlation_id: 'c1' },
  });

  beforeAll(async () => {
    store = await makeStore();
  });
  afterAll(async () => {
    await store.close();
  });

  test('appends to a new stream and reads it back with revisions, data and metadata', async () => {
    const s = stream();
    const e1 = event('thing.created', { amount: '10.50', nested: { a: [1, 2] } });
    const e2 = event('thing.updated', { name: 'x' });
    const result = await store.append(s, [e1, e2], 'no_stream');
    expect(result.nextExpectedRevision).toBe(1);
    const read = await store.readStream(s);
    expect(read.map((e) => [e.id, e.type, e.revision, e.streamId])).toEqual([
      [e1.id, 'thing.created', 0, s],
      [e2.id, 'thing.updated', 1, s],
    ]);
    expect(read[0].data).toEqual({ amount: '10.50', nested: { a: [1, 2] } });
    expect(read[0].metadata).toEqual(e1.metadata);
    expect(read[1].position).toBe(result.position);
    expect(read[1].position > read[0].position).toBe(true);
  });

  test('reading a stream that does not exist gives no events', async () => {
    expect(await store.readStream(stream())).toEqual([]);
  });

  test('reads a stream from a revision', async () => {
    const s = stream();
    await store.append(s, [event('a'), event('b'), event('c')], 'no_stream');
    expect((await store.readStream(s, 1)).map((e) => e.type)).toEqual(['b', 'c']);
  });

  test('no_stream on an existing stream is a typed conflict', async () => {
    const s = stream();
    await store.append(s, [event('a')], 'no_stream');
    await expect(store.append(s, [event('b')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream(s)).map((e) => e.type)).toEqual(['a']);
  });

  test('an exact revision must match the last event of the stream', async () => {
    const s = stream();
    await store.append(s, [event('a'), event('b')], 'no_stream');
    await expect(store.append(s, [event('x')], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(store.append(stream(), [event('x')], 0)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    const ok = await store.append(s, [event('c')], 1);
    expect(ok.nextExpectedRevision).toBe(2);
    expect((await store.readStream(s)).map((e) => e.type)).toEqual(['a', 'b', 'c']);
  });

  test('any appends whatever the stream holds', async () => {
    const s = stream();
    await store.append(s, [event('a')], 'any');
    const r = await store.append(s, [event('b')], 'any');
    expect(r.nextExpectedRevision).toBe(1);
  });

  test('of concurrent appends with the same expected revision exactly one wins', async () => {
    const s = stream();
    await store.append(s, [event('created')], 'no_stream');
    const attempts = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => store.append(s, [event(`attempt.${i}`)], 0)),
    );
    const won = attempts.filter((a) => a.status === 'fulfilled');
    const lost = attempts.filter((a) => a.status === 'rejected') as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(9);
    for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store.readStream(s)).toHaveLength(2);
  });

  test('a failed append in a concurrent group does not affect the others', async () => {
    const a = stream();
    const b = stream();
    await store.append(a, [event('a0')], 'no_stream');
    const [bad, good] = await Promise.allSettled([
      store.append(a, [event('a-wrong')], 5),
      store.append(b, [event('b0'), event('b1')], 'no_stream'),
    ]);
    expect(bad.status).toBe('rejected');
    expect(good.status).toBe('fulfilled');
    expect((await store.readStream(b)).map((e) => e.type)).toEqual(['b0', 'b1']);
    expect((await store.readStream(a)).map((e) => e.type)).toEqual(['a0']);
  });

  test('reads all streams in one global order, strictly after a position, in pages', async () => {
    const start = await store.headPosition();
    const s1 = stream();
    const s2 = stream();
    await store.append(s1, [event('g1')], 'no_stream');
    await store.append(s2, [event('g2'), event('g3')], 'no_stream');
    await store.append(s1, [event('g4')], 0);
    const mine = <T extends { streamId: string }>(evs: T[]) => evs.filter((e) => e.streamId === s1 || e.streamId === s2);
    const all = mine(await store.readAll({ after: start, maxCount: 1000 }));
    expect(all.map((e) => e.type)).toEqual(['g1', 'g2', 'g3', 'g4']);
    const positions = all.map((e) => e.position);
    expect([...positions].sort()).toEqual(positions);
    expect(new Set(positions).size).toBe(4);
    // paging: strictly after each page's last position, no event twice, none lost
    const paged: string[] = [];
    let after = start;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 2 });
      if (page.length === 0) break;
      paged.push(...mine(page).map((e) => e.type));
      after = page[page.length - 1].position;
    }
    expect(paged).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(await store.headPosition()).toBe(positions[3]);
  });

  test('parseOnly (a follower\'s hint): every event still comes back, in order, with its metadata; the named types with their data', async () => {
    const start = await store.headPosition();
    const s1 = stream();
    await store.append(s1, [event('wanted', { v: 1 }), event('other', { v: 2 }), event('wanted', { v: 3 })], 'no_stream');
    const read = (await store.readAll({ after: start, maxCount: 1000, parseOnly: new Set(['wanted']) })).filter((e) => e.streamId === s1);
    expect(read.map((e) => [e.type, e.revision])).toEqual([['wanted', 0], ['other', 1], ['wanted', 2]]);
    expect(read.filter((e) => e.type === 'wanted').map((e) => e.data)).toEqual([{ v: 1 }, { v: 3 }]);
    for (const e of read) expect(e.metadata.occurred_at).toEqual(expect.any(String));
  });

  test('tells listeners that events were appended', async () => {
    let calls = 0;
    const off = store.onAppended(() => calls++);
    await store.append(stream(), [event('x')], 'no_stream');
    for (let i = 0; i < 50 && calls === 0; i++) await new Promise((r) => setTimeout(r, 20));
    off();
    expect(calls).toBeGreaterThan(0);
  });

  test('$all gives only our events: system and link events are left out of reads and of the head', async () => {
    const start = await store.headPosition();
    const s = stream();
    await store.append(s, [event('ours.1'), event('ours.2')], 'no_stream');
    await options.writeForeignEvents?.(s);
    const ours = await store.append(s, [event('ours.3')], 1);
    await options.writeForeignEvents?.(s);
    const after = await store.readAll({ after: start, maxCount: 10_000 });
    for (const e of after) {
      expect(e.type.startsWith('$')).toBe(false);
      expect(e.streamId.startsWith('$')).toBe(false);
    }
    expect(after.filter((e) => e.streamId === s).map((e) => e.type)).toEqual(['ours.1', 'ours.2', 'ours.3']);
    // The newest event is a foreign one where the engine has them: the head is still our last event
    // (or a later one of ours written by another test of this run, never a system event).
    const head = await store.headPosition();
    expect(head! >= ours.position).toBe(true);
    expect((await store.readAll({ after: start, maxCount: 10_000 })).some((e) => e.position === head)).toBe(true);
  });

  test('pages past 1,000 events: 2,500 events read back whole, in order, by the port\'s paging', async () => {
    const start = await store.headPosition();
    const s = stream('bulk');
    const written: string[] = [];
    for (let batch = 0; batch < 25; batch++) {
      const events = Array.from({ length: 100 }, (_, i) => event('bulk.item', { n: batch * 100 + i }));
      written.push(...events.map((e) => e.id));
      await store.append(s, events, batch === 0 ? 'no_stream' : batch * 100 - 1);
    }
    // One read larger than any page the engine serves at once.
    const whole = (await store.readAll({ after: start, maxCount: 2_500 })).filter((e) => e.streamId === s);
    expect(whole.map((e) => e.id)).toEqual(written);
    // Pages of 1,000 (what the projection pipeline asks), each strictly after the last one's end.
    const paged: RecordedEvent[] = [];
    const pageSizes: number[] = [];
    let after = start;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 1_000 });
      if (page.length === 0) break;
      pageSizes.push(page.length);
      paged.push(...page.filter((e) => e.streamId === s));
      after = page[page.length - 1].position;
    }
    expect(paged.map((e) => e.id)).toEqual(written);
    expect(paged.map((e) => e.data.n)).toEqual(written.map((_, i) => i));
    expect(paged.map((e) => e.revision)).toEqual(written.map((_, i) => i));
    expect(pageSizes.slice(0, 2)).toEqual([1_000, 1_000]);
    const positions = paged.map((e) => e.position);
    expect(new Set(positions).size).toBe(2_500);
    expect([...positions].sort()).toEqual(positions);
    expect((await store.readStream(s, 2_400)).map((e) => e.data.n)).toEqual(written.slice(2_400).map((_, i) => 2_400 + i));
  }, 120_000);

  test('a listener is woken by an append made through ANOTHER adapter instance (the engine tells it, not the writer)', async () => {
    const other = await makeStore();
    try {
      let woken = 0;
      const off = store.onAppended(() => woken++);
      try {
        // A subscription may take a moment to be live: let it settle, and append again if the first
        // append came before it. Each append gets a bounded time to wake the listener.
        await new Promise((r) => setTimeout(r, 300));
        const s = stream('remote');
        let expected: ExpectedRevision = 'no_stream';
        for (let attempt = 0; attempt < 3 && woken === 0; attempt++) {
          const r = await other.append(s, [event('remote.appended')], expected);
          expected = r.nextExpectedRevision;
          for (let waited = 0; waited < 2_000 && woken === 0; waited += 20) await new Promise((r) => setTimeout(r, 20));
        }
        expect(woken).toBeGreaterThan(0);
        // And the woken reader finds the event.
        expect((await store.readStream(s)).map((e) => e.type)[0]).toBe('remote.appended');
      } finally {
        off();
      }
    } finally {
      await other.close();
    }
  }, 30_000);
  describe('deleting old streams of a prefix (idempotency records)', () => {
    const at = (occurred_at: string, type = 'record'): NewEvent => ({ ...event(type), metadata: { occurred_at } });
    const day = (d: number, h = 0) => new Date(Date.UTC(2026, 0, d, h)).toISOString();
    /** Reads until `done` holds (a real EventStoreDB may answer a read from just before a write for a moment). */
    const settled = async (streamId: string, done: (events: RecordedEvent[]) => boolean) => {
      let events = await store.readStream(streamId);
      for (let i = 0; i < 50 && !done(events); i++) {
        await new Promise((r) => setTimeout(r, 20));
        events = await store.readStream(streamId);
      }
      return events;
    };

    test('deletes whole streams whose last event is older, at most `limit` a call; keeps younger streams, streams written since, and other prefixes', async () => {
      expect(typeof store.deleteStreamsOlderThan).toBe('function');
      const prefix = `prune${run}-`;
      const s = (name: string) => `${prefix}${name}`;
      // Written in time order, as the clock stamps records.
      await store.append(s('old1'), [at(day(1, 0), 'claimed'), at(day(1, 0), 'completed')], 'no_stream');
      await store.append(s('old2'), [at(day(1, 1))], 'no_stream');
      await store.append(s('mixed'), [at(day(1, 2))], 'no_stream');
      await store.append(s('old3'), [at(day(1, 3))], 'no_stream');
      const other = `keep${run}-old`;
      await store.append(other, [at(day(1, 4))], 'no_stream');
      await store.append(s('young'), [at(day(3, 0))], 'no_stream');
      await store.append(s('mixed'), [at(day(3, 1))], 0);
      const before = day(2);

      expect(await store.deleteStreamsOlderThan!(prefix, before, 2)).toBe(2);
      expect(await store.deleteStreamsOlderThan!(prefix, before, 1000)).toBe(1);
      expect(await store.deleteStreamsOlderThan!(prefix, before, 1000)).toBe(0);
      for (const gone of ['old1', 'old2', 'old3']) expect(await settled(s(gone), (e) => e.length === 0)).toEqual([]);
      expect((await store.readStream(s('mixed'))).map((e) => e.metadata.occurred_at)).toEqual([day(1, 2), day(3, 1)]);
      expect(await store.readStream(s('young'))).toHaveLength(1);
      expect(await store.readStream(other)).toHaveLength(1);

      // Once their last events are old too, they go.
      expect(await store.deleteStreamsOlderThan!(prefix, day(4), 1000)).toBe(2);
      expect(await settled(s('mixed'), (e) => e.length === 0)).toEqual([]);
      expect(await settled(s('young'), (e) => e.length === 0)).toEqual([]);
      expect(await store.readStream(other)).toHaveLength(1);
    }, 120_000); // EventStoreDB walks `$all` from its start on the first call: a long-used server has much of it

    test('a deleted stream is written again from no_stream and reads back only its new events; the expected revision is the last read event\'s own', async () => {
      const prefix = `prunere${run}-`;
      const s = `${prefix}key`;
      await store.append(s, [at(day(1), 'claimed'), at(day(1), 'completed')], 'no_stream');
      expect(await store.deleteStreamsOlderThan!(prefix, day(2), 1000)).toBe(1);
      expect(await settled(s, (e) => e.length === 0)).toEqual([]);

      const claim = at(day(5), 'claimed');
      await store.append(s, [claim], 'no_stream');
      const history = await settled(s, (e) => e.length > 0);
      expect(history.map((e) => [e.id, e.type])).toEqual([[claim.id, 'claimed']]);
      await expect(store.append(s, [at(day(5), 'claimed')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const completed = await store.append(s, [at(day(5), 'completed')], expectedRevisionAfter(history));
      const again = await store.readStream(s);
      expect(again.map((e) => e.type)).toEqual(['claimed', 'completed']);
      expect(again[1].revision).toBe(completed.nextExpectedRevision);
      expect(await store.deleteStreamsOlderThan!(prefix, day(2), 1000)).toBe(0);
      expect(await store.readStream(s)).toHaveLength(2);
    }, 120_000);
  });

  describe('appendMany (several streams in one call)', () => {
    test('appends every part in the order given, one result per part, the same stream twice continuing its revision', async () => {
      const start = await store.headPosition();
      const sub = stream('subscription');
      const col = stream('collection');
      const results = await store.appendMany([
        { streamId: sub, events: [event('subscription.created')], expected: 'no_stream' },
        { streamId: col, events: [event('collection.created')], expected: 'no_stream' },
        { streamId: col, events: [event('transaction.created'), event('charge.created')], expected: 0 },
      ]);
      expect(results.map((r) => r.nextExpectedRevision)).toEqual([0, 0, 2]);
      const all = (await store.readAll({ after: start, maxCount: 1000 })).filter((e) => e.streamId === sub || e.streamId === col);
      expect(all.map((e) => [e.type, e.streamId, e.revision])).toEqual([
        ['subscription.created', sub, 0],
        ['collection.created', col, 0],
        ['transaction.created', col, 1],
        ['charge.created', col, 2],
      ]);
      expect(results.map((r) => r.position)).toEqual([all[0].position, all[1].position, all[3].position]);
    });

    test('checks each part against its own expected revision; a conflict names its stream', async () => {
      const a = stream();
      const b = stream();
      await store.append(b, [event('b0')], 'no_stream');
      const error = await store.appendMany([
        { streamId: a, events: [event('a0')], expected: 'no_stream' },
        { streamId: b, events: [event('b-wrong')], expected: 'no_stream' },
      ]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect((error as WrongExpectedRevisionError).streamId).toBe(b);
      expect((await store.readStream(b)).map((e) => e.type)).toEqual(['b0']);
      // Atomic stores write none of the parts; the others (EventStoreDB) keep the parts before the conflict.
      expect((await store.readStream(a)).map((e) => e.type)).toEqual(store.atomicMultiStream ? [] : ['a0']);
    });

    test('a conflicting multi-stream append beside other appends does not affect them', async () => {
      const a = stream();
      const b = stream();
      const c = stream();
      await store.append(a, [event('a0')], 'no_stream');
      const [bad, good] = await Promise.allSettled([
        store.appendMany([
          { streamId: b, events: [event('b0')], expected: 'no_stream' },
          { streamId: a, events: [event('a-wrong')], expected: 'no_stream' },
        ]),
        store.append(c, [event('c0')], 'no_stream'),
      ]);
      expect(bad.status).toBe('rejected');
      expect(good.status).toBe('fulfilled');
      expect((await store.readStream(c)).map((e) => e.type)).toEqual(['c0']);
      expect((await store.readStream(a)).map((e) => e.type)).toEqual(['a0']);
    });
  });

  describe(options.skipAuditChain ? `audit chain (skipped: ${options.skipAuditChain})` : 'audit chain (docs/audit.md)', () => {
    const maybe = options.skipAuditChain ? test.skip : test;
    const account = `acct_chain${run}`;
    /** Reads until `done` holds (a chaining follower writes right after the append). */
    const settled = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
      let value = await read();
      for (let i = 0; i < 100 && !done(value); i++) {
        await new Promise((r) => setTimeout(r, 20));
        value = await read();
      }
      return value;
    };
    const ofAccount = (type: string, acct = account): NewEvent => ({ ...event(type, { amount: '1.00' }), metadata: { ...event(type).metadata, account_id: acct } });

    maybe('chains every appended event into its account’s chain: seq from 0, each entry linked to the one before, the event’s hash recomputable', async () => {
      const chain = store.auditChain!;
      expect(chain).toBeDefined();
      const s = stream();
      await store.append(s, [ofAccount('a'), ofAccount('b')], 'no_stream');
      await store.append(stream(), [{ ...event('platform.thing'), metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } }], 'no_stream');
      const entries = await settled(() => chain.readChain(account, 0, 10), (e) => e.length === 2);
      const events = await store.readStream(s);
      expect(entries.map((e) => [e.account, e.seq, e.event_id, e.position])).toEqual(events.map((e, i) => [account, i, e.id, e.position]));
      expect(entries[0].prev).toBe(GENESIS);
      expect(entries[1].prev).toBe(entries[0].chain_hash);
      expect(entries.map((e) => e.event_hash)).toEqual(events.map((e) => eventHash(e)));
      expect(await chain.chainHead(account)).toEqual({ account, size: 2, chain_hash: entries[1].chain_hash });
      expect(await chain.chainEntry(events[1].id)).toEqual(entries[1]);
      expect(await chain.chainAccounts()).toEqual(expect.arrayContaining([account, PLATFORM_ACCOUNT]));
      expect(await chain.readChain(account, 1, 10)).toEqual([entries[1]]);
    });

    maybe('a refused append leaves no entry; another instance on the same storage continues the same chain', async () => {
      const chain = store.auditChain!;
      const acct = `${account}_b`;
      const s = stream();
      await store.append(s, [ofAccount('a', acct)], 'no_stream');
      await expect(store.append(s, [ofAccount('b', acct)], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await settled(() => chain.chainHead(acct), (h) => h.size === 1);
      const other = await makeStore();
      try {
        await other.append(s, [ofAccount('c', acct)], 0);
        await store.append(s, [ofAccount('d', acct)], 1);
        const entries = await settled(() => chain.readChain(acct, 0, 10), (e) => e.length === 3);
        expect(entries.map((e) => e.seq)).toEqual([0, 1, 2]);
        expect(entries[1].prev).toBe(entries[0].chain_hash);
        expect(entries[2].prev).toBe(entries[1].chain_hash);
        expect(entries.map((e) => e.event_hash)).toEqual((await store.readStream(s)).map((e) => eventHash(e)));
      } finally {
        await other.close();
      }
    });
  });
}
