import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../libs/event-store/src/sqlite-event-store.js';
import { eventStoreContract } from './event-store.contract.js';

const dir = mkdtempSync(join(tmpdir(), 'es-contract-'));

describe('event store contract: embedded SQLite', () => {
  eventStoreContract(async () => new SqliteEventStore(join(dir, 'events.sqlite')));
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
});
