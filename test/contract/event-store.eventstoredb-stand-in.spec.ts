import { binaryEvent } from '@eventstore/db-client';
import { EventStoreDbEventStore } from '#event-store/eventstoredb-event-store.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStoreDbStandIn } from '../support/eventstoredb-stand-in.js';
import { NamespacedEventStore } from '../support/production-stores.js';
import { eventStoreContract } from './event-store.contract.js';

/**
 * The EventStoreDB adapter's own code (paging `$all` past the server's page, skipping the server's
 * system and link events, the head, the live `$all` subscription) held to the event-store contract on
 * an in-memory stand-in for the server and its client (test/support/eventstoredb-stand-in.ts). The
 * real server runs the same contract in event-store.eventstoredb.spec.ts when EVENTSTORE_URL is set.
 */
describe('event store contract: EventStoreDB adapter on an in-memory stand-in', () => {
  const server = new EventStoreDbStandIn();
  eventStoreContract(async () => new EventStoreDbEventStore('esdb://stand-in.invalid:2113?tls=false', server.client()), {
    async writeForeignEvents(ourStream) {
      const client = server.client();
      await client.setStreamMetadata(ourStream, { maxCount: 1_000_000 });
      await client.appendToStream(`contractlinks-${crypto.randomUUID().slice(0, 8)}`, [binaryEvent({ type: '$>', data: Buffer.from(`0@${ourStream}`) })]);
    },
  });
});

describe('event store contract: one test app\'s namespace of a shared EventStoreDB (the HTTP harness, test/support/production-stores.ts)', () => {
  const server = new EventStoreDbStandIn();
  const dataDir = mkdtempSync(join(tmpdir(), 'es-namespace-'));
  const open = async (dir: string) => NamespacedEventStore.open(new EventStoreDbEventStore('esdb://stand-in.invalid:2113?tls=false', server.client()), dir);
  // Another test app writing beside it, before and during the run.
  const neighbour = open(mkdtempSync(join(tmpdir(), 'es-namespace-other-')));
  beforeAll(async () => {
    const other = await neighbour;
    for (let i = 0; i < 30; i++) await other.append(`noise-${i}`, [{ id: crypto.randomUUID(), type: 'noise', data: {}, metadata: { occurred_at: 'x' } }], 'no_stream');
  });
  afterAll(async () => (await neighbour).close());
  eventStoreContract(async () => {
    const store = await open(dataDir);
    const other = await neighbour;
    // Every store this contract opens sees the neighbour keep writing.
    void other.append(`noise-${crypto.randomUUID()}`, [{ id: crypto.randomUUID(), type: 'noise', data: {}, metadata: { occurred_at: 'x' } }], 'no_stream');
    return store;
  });

  test('a namespace sees none of the events written before it started nor any other namespace\'s', async () => {
    const store = await open(mkdtempSync(join(tmpdir(), 'es-namespace-fresh-')));
    expect(await store.headPosition()).toBeNull();
    expect(await store.readAll({ maxCount: 10_000 })).toEqual([]);
    await store.append('thing-1', [{ id: crypto.randomUUID(), type: 'thing.created', data: {}, metadata: { occurred_at: 'x' } }], 'no_stream');
    await (await neighbour).append(`noise-late`, [{ id: crypto.randomUUID(), type: 'noise', data: {}, metadata: { occurred_at: 'x' } }], 'any');
    const all = await store.readAll({ maxCount: 10_000 });
    expect(all.map((e) => [e.streamId, e.type])).toEqual([['thing-1', 'thing.created']]);
    expect(await store.headPosition()).toBe(all[0].position);
    await store.close();
  });
});
