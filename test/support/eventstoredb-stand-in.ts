import { ANY, END, NO_STREAM, START, STREAM_EXISTS, StreamNotFoundError, WrongExpectedVersionError } from '@eventstore/db-client';
import type { EventStoreDBClient } from '@eventstore/db-client';
import { EventEmitter } from 'node:events';

/**
 * An in-memory stand-in for an EventStoreDB server and the parts of its Node client that
 * EventStoreDbEventStore uses, with the server's behaviour where the adapter depends on it:
 *
 * - `$all` holds the server's own events too: an `$epoch` record at the start, `$metadata` events
 *   (`setStreamMetadata`, in `$$<stream>`), link events (`$>`) appended like any event, and a
 *   `$statsCollected` event in `$stats-…` after every 7th append;
 * - positions are `{commit, prepare}` with gaps (a log offset, not a count);
 * - `readAll` forwards from a position includes the event AT that position; backwards from a
 *   position includes it too; a page is at most `maxCount` records, system events included;
 * - `subscribeToAll({fromPosition: END, filter: excludeSystemEvents()})` emits every later non-`$`
 *   event to every client connected to the same server (another process's appends included).
 *
 * No EventStoreDB server runs where the tests run: this lets the event-store contract run the
 * adapter's real code. Each `client()` is one connection (one adapter instance, one process).
 */
interface StoredEvent {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  isJson: boolean;
  created: Date;
  position: { commit: bigint; prepare: bigint };
}

type EventData = { id: string; type: string; data: unknown; metadata?: unknown; contentType?: string };

export class EventStoreDbStandIn {
  readonly log: StoredEvent[] = [];
  private readonly live = new EventEmitter();
  private offset = 0n;
  private appends = 0;

  constructor() {
    this.live.setMaxListeners(0);
    this.write('$epochs', { id: crypto.randomUUID(), type: '$epoch', data: {} });
  }

  private write(streamId: string, e: EventData): StoredEvent {
    const revision = BigInt(this.log.filter((x) => x.streamId === streamId).length);
    this.offset += 37n + BigInt(Math.floor(Math.random() * 100));
    const stored: StoredEvent = {
      streamId,
      id: e.id,
      revision,
      type: e.type,
      data: e.data instanceof Uint8Array ? e.data : structuredClone(e.data),
      metadata: e.metadata === undefined ? undefined : structuredClone(e.metadata),
      isJson: e.contentType !== 'application/octet-stream',
      created: new Date(),
      position: { commit: this.offset, prepare: this.offset },
    };
    this.log.push(stored);
    return stored;
  }

  private streamRevision(streamId: string): bigint | typeof NO_STREAM {
    let last: bigint | typeof NO_STREAM = NO_STREAM;
    for (const e of this.log) if (e.streamId === streamId) last = e.revision;
    return last;
  }

  /** One connection to this server: what `EventStoreDBClient.connectionString(url)` gives the adapter. */
  client(version = '23.10.1'): EventStoreDBClient {
    const server = this;
    let disposed = false;
    const alive = () => {
      if (disposed) throw new Error('client disposed');
    };
    const client = {
      capabilities: Promise.resolve({ serverVersion: version }),
      async appendToStream(streamId: string, events: EventData | EventData[], options: { expectedRevision?: unknown } = {}) {
        alive();
        await Promise.resolve(); // the network: concurrent appends interleave here, the server decides each alone
        const list = Array.isArray(events) ? events : [events];
        const expected = options.expectedRevision ?? ANY;
        const current = server.streamRevision(streamId);
        const ok =
          expected === ANY ||
          (expected === NO_STREAM && current === NO_STREAM) ||
          (expected === STREAM_EXISTS && current !== NO_STREAM) ||
          (typeof expected === 'bigint' && expected === current);
        if (!ok) {
          throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected: expected as never, current: current as never });
        }
        const written = list.map((e) => server.write(streamId, e));
        if (++server.appends % 7 === 0) server.write(`$stats-127.0.0.1:2113`, { id: crypto.randomUUID(), type: '$statsCollected', data: {} });
        for (const e of written) if (!e.type.startsWith('$')) server.live.emit('event', e);
        const last = written[written.length - 1];
        return { success: true, nextExpectedRevision: last.revision, position: last.position };
      },
      async setStreamMetadata(streamId: string, metadata: unknown) {
        alive();
        const e = server.write(`$$${streamId}`, { id: crypto.randomUUID(), type: '$metadata', data: metadata });
        return { success: true, nextExpectedRevision: e.revision, position: e.position };
      },
      readStream(streamId: string, options: { fromRevision?: bigint; maxCount?: number } = {}) {
        alive();
        const from = options.fromRevision ?? 0n;
        const events = server.log.filter((e) => e.streamId === streamId);
        if (events.length === 0) {
          return (async function* () {
            throw new StreamNotFoundError(undefined, streamId);
          })();
        }
        const out = events.filter((e) => e.revision >= from).slice(0, options.maxCount ?? Infinity);
        return (async function* () {
          for (const e of out) yield { event: structuredClone(e) };
        })();
      },
      readAll(options: { fromPosition?: unknown; direction?: string; maxCount?: number } = {}) {
        alive();
        const backwards = options.direction === 'backwards';
        const from = options.fromPosition ?? (backwards ? END : START);
        let events: StoredEvent[];
        if (backwards) {
          events = [...server.log].reverse();
          if (from !== END) events = events.filter((e) => e.position.commit <= (from as { commit: bigint }).commit);
        } else {
          events = server.log;
          if (from !== START) events = events.filter((e) => e.position.commit >= (from as { commit: bigint }).commit);
        }
        const page = events.slice(0, options.maxCount ?? Infinity).map((e) => structuredClone(e));
        return (async function* () {
          for (const e of page) yield { event: e };
        })();
      },
      subscribeToAll(options: { fromPosition?: unknown; filter?: unknown } = {}) {
        alive();
        if (options.fromPosition !== END) throw new Error('stand-in: only subscriptions from END');
        const sub = new EventEmitter() as EventEmitter & { unsubscribe(): Promise<void> };
        const forward = (e: StoredEvent) => setImmediate(() => sub.emit('data', { event: structuredClone(e) }));
        // A subscription is live a moment after it is asked for, as over the network.
        const timer = setTimeout(() => server.live.on('event', forward), 20);
        sub.unsubscribe = async () => {
          clearTimeout(timer);
          server.live.off('event', forward);
        };
        return sub;
      },
      async dispose() {
        disposed = true;
      },
    };
    return client as unknown as EventStoreDBClient;
  }
}
