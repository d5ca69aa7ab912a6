import { binaryEvent } from '@eventstore/db-client';
import { EventStoreDbEventStore } from '../../libs/event-store/src/eventstoredb-event-store.js';
import { EventStoreDbStandIn } from '../support/eventstoredb-stand-in.js';
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
