import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { jest } from '@jest/globals';
import { WrongExpectedRevisionError } from '../../libs/event-store/src/event-store.port.js';
import { SqliteEventStore } from '../../libs/event-store/src/sqlite-event-store.js';
import { eventStoreContract } from './event-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'es-contract-'));

// Both places the commits can run (SQLITE_WRITER): the writer thread (the default) and the event loop.
describe.each(['thread', 'inline'] as const)('event store contract: embedded SQLite, writer %s', (writer) => {
  eventStoreContract(async () => new SqliteEventStore(join(dir, `events-${writer}.sqlite`), { writer }));
});

describe('embedded SQLite event store', () => {
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
