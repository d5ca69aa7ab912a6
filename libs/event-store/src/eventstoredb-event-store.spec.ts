import { NO_STREAM, type EventStoreDBClient } from '@eventstore/db-client';
import { assertSupportedServer, EventStoreDbEventStore } from './eventstoredb-event-store.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { FixedClock } from '#shared/clock.js';
import type { Decider } from '#shared/decider.js';

/**
 * The EventStoreDB adapter against a fake with the client's shape (no server can run in CI):
 * events as the client hands them over, the server version as its server-features call reports it.
 */
function fakeClient(options: { version: string; stream: Array<{ revision: bigint; position?: { commit: bigint; prepare: bigint } }> }) {
  const appended: Array<{ streamId: string; expectedRevision: unknown }> = [];
  const client = {
    capabilities: Promise.resolve({ serverVersion: options.version }),
    async appendToStream(streamId: string, _events: unknown[], opts: { expectedRevision: unknown }) {
      appended.push({ streamId, expectedRevision: opts.expectedRevision });
      return { success: true, nextExpectedRevision: 7n, position: { commit: 900n, prepare: 900n } };
    },
    readStream(streamId: string) {
      const events = options.stream.map((e) => ({
        event: {
          streamId,
          id: `00000000-0000-4000-8000-00000000000${Number(e.revision)}`,
          revision: e.revision,
          type: 'thing.happened',
          data: { n: Number(e.revision) },
          metadata: { occurred_at: '2026-01-01T00:00:00.000Z' },
          isJson: true,
          created: new Date('2026-01-01T00:00:00.000Z'),
          position: e.position,
        },
      }));
      return (async function* () {
        yield* events;
      })();
    },
    async dispose() {},
  };
  return { client: client as unknown as EventStoreDBClient, appended };
}

describe('EventStoreDB adapter (fake client)', () => {
  test('a truncated stream (first events scavenged) is appended to with its last event revision, not history.length - 1', async () => {
    const { client, appended } = fakeClient({
      version: '23.10.1',
      stream: [
        { revision: 5n, position: { commit: 500n, prepare: 500n } },
        { revision: 6n, position: { commit: 600n, prepare: 600n } },
      ],
    });
    const store = new EventStoreDbEventStore('esdb://localhost:2113?tls=false', client);
    const decider: Decider<{ type: 'go' }, number, { type: 'thing.happened'; data: Record<string, unknown> }> = {
      initialState: 0,
      evolve: (n: number) => n + 1,
      decide: () => [{ type: 'thing.happened', data: {} }],
    } as never;
    const executor = new AggregateExecutor(store, new FixedClock(new Date('2026-01-01T00:00:00Z')));
    const history = await store.readStream('thing-1');
    expect(history.map((e) => e.revision)).toEqual([5, 6]);
    await executor.execute(decider, 'thing-1', () => ({ type: 'go' }), null);
    expect(appended).toEqual([{ streamId: 'thing-1', expectedRevision: 6n }]);
  });

  test('an empty stream is appended to with NO_STREAM', async () => {
    const { client, appended } = fakeClient({ version: '24.2.0', stream: [] });
    const store = new EventStoreDbEventStore('esdb://localhost:2113?tls=false', client);
    const decider = { initialState: 0, evolve: (n: number) => n + 1, decide: () => [{ type: 'thing.happened', data: {} }] } as never;
    await new AggregateExecutor(store, new FixedClock(new Date())).execute(decider, 'thing-2', () => ({}), null);
    expect(appended[0].expectedRevision).toBe(NO_STREAM);
  });

  test.each(['21.10.9', '22.5.0', '20.10.5', 'unknown', ''])('a server reporting version %p is refused with a clear message', async (version) => {
    const { client, appended } = fakeClient({ version, stream: [] });
    const store = new EventStoreDbEventStore('esdb://localhost:2113?tls=false', client);
    await expect(store.append('thing-3', [{ id: '00000000-0000-4000-8000-000000000001', type: 't', data: {}, metadata: { occurred_at: 'x' } }], 'any')).rejects.toThrow(
      /EventStoreDB 22\.6 or later is required/,
    );
    await expect(store.readStream('thing-3')).rejects.toThrow(/22\.6 or later/);
    expect(appended).toEqual([]);
  });

  test.each(['22.6.0', '22.10.3', '23.10.0', '24.10.1'])('a server reporting version %p is accepted', (version) => {
    expect(() => assertSupportedServer(version)).not.toThrow();
  });

  test('a stream event without a log position (what an old server sends: zeros) is refused, not given position 0', async () => {
    const { client } = fakeClient({ version: '22.6.0', stream: [{ revision: 0n, position: { commit: 0n, prepare: 0n } }] });
    const store = new EventStoreDbEventStore('esdb://localhost:2113?tls=false', client);
    await expect(store.readStream('thing-4')).rejects.toThrow(/has no position/);
  });
});
