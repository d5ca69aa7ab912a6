import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { eventStoreContract } from './event-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'es-contract-'));

// Both places the commits can run (SQLITE_WRITER): the writer thread (the default) and the event loop.
describe.each(['thread', 'inline'] as const)('event store contract: embedded SQLite, writer %s', (writer) => {
  eventStoreContract(async () => new SqliteEventStore(join(dir, `events-${writer}.sqlite`), { writer }));
});

describe('embedded SQLite event store', () => {
  test('parseOnly: events of other types come back without their data parsed, from the recent window and from the file', async () => {
    const file = join(dir, 'parse-only.sqlite');
    const store = new SqliteEventStore(file);
    const ev = (type: string, v: number) => ({ id: randomUUID(), type, data: { v }, metadata: { occurred_at: 'x' } });
    await store.append('thing-p', [ev('wanted', 1), ev('other', 2)], 'no_stream');
    const parse = JSON.parse;
    const parsed: string[] = [];
    const spy = jest.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsed.push(text);
      return parse(text, reviver);
    });
    try {
      // Just appended: from the recent window.
      const recent = await store.readAll({ after: null, maxCount: 10, parseOnly: new Set(['wanted']) });
      expect(recent.map((e) => [e.type, e.data])).toEqual([['wanted', { v: 1 }], ['other', {}]]);
      expect(parsed).not.toContain('{"v":2}');
    } finally {
      spy.mockRestore();
    }
    await store.close();
    // Another instance on the same file: from the database.
    const reader = new SqliteEventStore(file);
    const fromFile = await reader.readAll({ after: null, maxCount: 10, parseOnly: new Set(['other']) });
    expect(fromFile.map((e) => [e.type, e.data])).toEqual([['wanted', {}], ['other', { v: 2 }]]);
    expect((await reader.readAll({ after: null, maxCount: 10 })).map((e) => e.data)).toEqual([{ v: 1 }, { v: 2 }]);
    await reader.close();
  });

  test('keeps committed events across a reopen', async () => {
    const file = join(dir, 'reopen.sqlite');
    const first = new SqliteEventStore(file);
    const id = randomUUID();
    await first.append('thing-1', [{ id, type: 't', data: { v: 1 }, metadata: { occurred_at: 'x' } }], 'no_stream');
    await first.close();
    const second = new SqliteEventStore(file);
    const events = await second.readStream('thing-1');
    expect(events.map((e) => e.id)).toEqual([id]);
    await second.close();
  });

  test('group commit: concurrent appends from different callers are one transaction, each caller gets its own result or conflict', async () => {
    const store = new SqliteEventStore(join(dir, 'group.sqlite'));
    await store.append('thing-taken', [{ id: randomUUID(), type: 't', data: {}, metadata: { occurred_at: 'x' } }], 'no_stream');
    const flush = jest.spyOn(store as unknown as { flush(): void }, 'flush');
    const ev = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: { occurred_at: 'x' } });
    const settled = await Promise.allSettled([
      ...Array.from({ length: 8 }, (_, i) => store.append(`thing-g${i}`, [ev('a'), ev('b')], 'no_stream')),
      store.append('thing-taken', [ev('conflict')], 'no_stream'),
      store.appendMany([
        { streamId: 'thing-m1', events: [ev('m1')], expected: 'no_stream' },
        { streamId: 'thing-m2', events: [ev('m2')], expected: 'no_stream' },
      ]),
    ]);
    expect(flush).toHaveBeenCalledTimes(1); // one transaction (one fsync) for all ten callers
    const ok = settled.slice(0, 8).map((s) => (s as PromiseFulfilledResult<{ nextExpectedRevision: number; position: string }>).value);
    expect(ok.map((r) => r.nextExpectedRevision)).toEqual(Array(8).fill(1));
    expect(new Set(ok.map((r) => r.position)).size).toBe(8);
    for (let i = 0; i < 8; i++) {
      const read = await store.readStream(`thing-g${i}`);
      expect(read.map((e) => e.type)).toEqual(['a', 'b']);
      expect(read[1].position).toBe(ok[i].position);
    }
    expect(settled[8].status).toBe('rejected');
    expect((settled[8] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(settled[9].status).toBe('fulfilled');
    expect((await store.readStream('thing-taken')).map((e) => e.type)).toEqual(['t']);
    expect((await store.readStream('thing-m2')).map((e) => e.type)).toEqual(['m2']);
    await store.close();
  });
});

describe.each(['thread', 'inline'] as const)('embedded SQLite event store: the recent window (writer %s)', (writer) => {
  const ev = (type: string, v = 0) => ({ id: randomUUID(), type, data: { v, nested: { list: [v] } }, metadata: { occurred_at: 'x' } });
  /** What the database holds, read by a second instance on the same file (it appended nothing: no window). */
  const fromDatabase = async (file: string, after: string | null, maxCount = 1000) => {
    const other = new SqliteEventStore(file, { writer });
    try {
      return await other.readAll({ after, maxCount });
    } finally {
      await other.close();
    }
  };

  test('readAll right after appends answers from the window exactly what the database holds, and does not read it', async () => {
    const file = join(dir, `recent-${writer}.sqlite`);
    const store = new SqliteEventStore(file, { writer });
    const first = await store.append('thing-r0', [ev('a')], 'no_stream');
    const readRows = jest.spyOn((store as unknown as { stmts: { readAll: { all: (...a: unknown[]) => unknown[] } } }).stmts.readAll, 'all');
    // One group: appends, a multi-stream append, and a conflict (rolled back: its events are not in the log).
    const settled = await Promise.allSettled([
      store.append('thing-r1', [ev('b', 1), ev('c', 2)], 'no_stream'),
      store.append('thing-r0', [ev('conflict')], 'no_stream'),
      store.appendMany([
        { streamId: 'thing-r2', events: [ev('d', 3)], expected: 'no_stream' },
        { streamId: 'thing-r0', events: [ev('e', 4), ev('f', 5)], expected: 0 },
      ]),
      store.append('thing-r3', [ev('g', 6)], 'no_stream'),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const read = await store.readAll({ after: first.position, maxCount: 100 });
    expect(readRows).not.toHaveBeenCalled();
    expect(read.map((e) => e.type)).toEqual(['b', 'c', 'd', 'e', 'f', 'g']);
    expect(read).toEqual(await fromDatabase(file, first.position));
    // maxCount is honoured; a later start inside the window too.
    expect((await store.readAll({ after: first.position, maxCount: 2 })).map((e) => e.type)).toEqual(['b', 'c']);
    expect((await store.readAll({ after: read[2].position, maxCount: 100 })).map((e) => e.type)).toEqual(['e', 'f', 'g']);
    // Each read gets objects of its own: what one reader changes, the next does not see.
    (read[0].data as { nested: { list: number[] } }).nested.list.push(99);
    expect((await store.readAll({ after: first.position, maxCount: 1 }))[0].data).toEqual({ v: 1, nested: { list: [1] } });
    await store.close();
  });

  test("another instance's appends in between are read from the database, in the global order", async () => {
    const file = join(dir, `recent-foreign-${writer}.sqlite`);
    const mine = new SqliteEventStore(file, { writer });
    const theirs = new SqliteEventStore(file, { writer });
    const start = await mine.append('thing-f0', [ev('mine-1')], 'no_stream');
    await theirs.append('thing-f1', [ev('theirs-1'), ev('theirs-2')], 'no_stream');
    await mine.append('thing-f0', [ev('mine-2')], 0);
    await theirs.append('thing-f1', [ev('theirs-3')], 1);
    await mine.append('thing-f0', [ev('mine-3')], 1);
    const all: string[] = [];
    for (let after: string | null = null; ; ) {
      const batch = await mine.readAll({ after, maxCount: 2 });
      if (batch.length === 0) break;
      all.push(...batch.map((e) => e.type));
      after = batch[batch.length - 1].position;
    }
    expect(all).toEqual(['mine-1', 'theirs-1', 'theirs-2', 'mine-2', 'theirs-3', 'mine-3']);
    expect(await mine.readAll({ after: start.position, maxCount: 100 })).toEqual(await fromDatabase(file, start.position));
    await mine.close();
    await theirs.close();
  });

  test('a listener at the announced head reads nothing without a query; another instance’s append is announced, then read', async () => {
    const file = join(dir, `recent-head-${writer}.sqlite`);
    const mine = new SqliteEventStore(file, { writer });
    const theirs = new SqliteEventStore(file, { writer });
    const woken: number[] = [];
    const stopListening = mine.onAppended(() => woken.push(Date.now()));
    const head = await mine.append('thing-h0', [ev('mine-1')], 'no_stream');
    const readRows = jest.spyOn((mine as unknown as { stmts: { readAll: { all: (...a: unknown[]) => unknown[] } } }).stmts.readAll, 'all');
    // The read that follows a reader's batch: at the head, nothing, and no query.
    expect(await mine.readAll({ after: head.position, maxCount: 100 })).toEqual([]);
    expect(readRows).not.toHaveBeenCalled();
    // Another instance appends: the watch announces it (a wake), and the read then asks the database.
    const before = woken.length;
    await theirs.append('thing-h1', [ev('theirs-1')], 'no_stream');
    const deadline = Date.now() + 2000;
    while (woken.length === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(woken.length).toBeGreaterThan(before);
    expect((await mine.readAll({ after: head.position, maxCount: 100 })).map((e) => e.type)).toEqual(['theirs-1']);
    expect(readRows).toHaveBeenCalledTimes(1);
    // Without a listener (no watch) a read at the head always asks the database.
    stopListening();
    const last = (await mine.readAll({ after: head.position, maxCount: 100 }))[0].position;
    readRows.mockClear();
    expect(await mine.readAll({ after: last, maxCount: 100 })).toEqual([]);
    expect(readRows).toHaveBeenCalledTimes(1);
    await mine.close();
    await theirs.close();
  });

  test('deleting old streams empties the window: a deleted event is never read again', async () => {
    const file = join(dir, `recent-delete-${writer}.sqlite`);
    const store = new SqliteEventStore(file, { writer });
    await store.append('other-1', [ev('keep')], 'no_stream');
    await store.append('idempotency-old', [{ ...ev('old'), metadata: { occurred_at: '2000-01-01T00:00:00.000Z' } }], 'no_stream');
    expect(await store.deleteStreamsOlderThan('idempotency-', '2001-01-01T00:00:00.000Z', 10)).toBe(1);
    expect((await store.readAll({ after: null, maxCount: 100 })).map((e) => e.type)).toEqual(['keep']);
    await store.close();
  });
});

describe('embedded SQLite event store: groups in flight to the writer thread', () => {
  test('the next group is sent while the previous answer is on its way (two at most), answers keep the order, revisions are checked in order', async () => {
    const store = new SqliteEventStore(join(dir, 'in-flight.sqlite'), { writer: 'thread' });
    const writer = (store as unknown as { writer: { request: (op: string, payload: unknown) => Promise<unknown> } }).writer;
    const real = writer.request.bind(writer);
    const held: Array<() => void> = [];
    const sent: unknown[][] = [];
    // Each answer is held back until released (as if the event loop were busy).
    writer.request = (op, payload) => {
      if (op !== 'append') return real(op, payload);
      sent.push(payload as unknown[]);
      const answer = real(op, payload);
      return new Promise((resolve, reject) => held.push(() => void answer.then(resolve, reject)));
    };
    const ev = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: { occurred_at: 'x' } });
    const turn = () => new Promise((r) => setImmediate(r));
    const a = store.append('thing-q', [ev('a')], 'no_stream');
    await turn();
    const b = store.append('thing-q', [ev('b')], 0); // decided on a's revision, sent before a is answered
    await turn();
    const c = store.append('thing-q', [ev('c')], 1);
    await turn();
    await turn();
    expect(sent.length).toBe(2); // a and b in flight, c gathered
    const order: string[] = [];
    void a.then(() => order.push('a'));
    void b.then(() => order.push('b'));
    void c.then(() => order.push('c'));
    held.shift()!();
    await a;
    for (let i = 0; i < 50 && sent.length < 3; i++) await turn();
    expect(sent.length).toBe(3); // a answered: c goes
    while (held.length || order.length < 3) {
      held.shift()?.();
      await turn();
    }
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect((await store.readStream('thing-q')).map((e) => [e.type, e.revision])).toEqual([['a', 0], ['b', 1], ['c', 2]]);
    writer.request = real;
    await store.close();
  });
});
