import { BACKWARDS, END, EventStoreDBClient, binaryEvent } from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { EventStoreDbEventStore } from '#event-store/eventstoredb-event-store.js';
import { eventStoreContract } from './event-store.contract.js';
import { gatedSuite, PROBE_TIMEOUT_MS, withTimeout } from './server-gate.js';

/**
 * The event store contract against a real EventStoreDB when EVENTSTORE_URL is set
 * (e.g. `esdb://admin:changeit@localhost:2113?tls=false`) and the server answers; otherwise skipped,
 * with the reason.
 */
await gatedSuite({
  title: 'event store contract: EventStoreDB',
  envVar: 'EVENTSTORE_URL',
  // What the contract needs: a read of `$all`.
  async probe(url) {
    const client = EventStoreDBClient.connectionString(url);
    try {
      for await (const _ of client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1, deadline: PROBE_TIMEOUT_MS })) void _;
    } finally {
      await withTimeout(client.dispose(), 1000).catch(() => undefined);
    }
  },
  suite: (url) =>
    eventStoreContract(async () => new EventStoreDbEventStore(url), {
        // What a real `$all` holds besides our events: the server's `$metadata` event (in `$$<stream>`)
      // and a link event (`$>`, as projections write) in a user stream, written with the raw client.
      // A client may append a link itself: it is an ordinary event of type `$>` whose binary body is
      // `<revision>@<stream>` (the Node client's maintainers' answer and test, KurrentDB-Client-NodeJS
      // issue #200 / PR #201; the server resolves it like a projection's link).
      async writeForeignEvents(ourStream) {
        const client = EventStoreDBClient.connectionString(url);
        try {
          await client.setStreamMetadata(ourStream, { maxCount: 1_000_000 });
          await client.appendToStream(`contractlinks-${randomUUID().slice(0, 8)}`, [
            binaryEvent({ type: '$>', data: Buffer.from(`0@${ourStream}`) }),
          ]);
        } finally {
          await client.dispose();
        }
      },
    }),
});
