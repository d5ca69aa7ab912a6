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
 *   event to every client connected to the same server (another process's appends included);
 * - `deleteStream` is a soft delete (the server sets the stream's truncate-before to "all", a
 *   `$metadata` event in `$$<stream>`): it needs a stream that exists (even with `ANY`) and checks the
 *   expected revision; the deleted stream reads as not found; an append expecting `NO_STREAM`, `ANY`
 *   or the deleted last revision recreates it, its revisions continuing after the deleted ones (and
 *   truncate-before moves to the first new one, another `$metadata` event); `$all` keeps the deleted
 *   events (until a scavenge, which the stand-in never runs). What the stand-in does not model: the
 *   real server's short window after a recreating append in which a read may still say not found
 *   (KurrentDB issue #1744).
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

/** A stream's state on the server: its events (the log's, in order) and its soft deletion. */
interface StreamState {
  events: StoredEvent[];
  /** Revision of the last event ever written (kept through a soft delete). */
  last: bigint | typeof NO_STREAM;
  /** Reads start here (moved past the deleted events when a soft-deleted stream is recreated). */
  truncateBefore: bigint;
  deleted: boolean;
}

export class EventStoreDbStandIn {
  readonly log: StoredEvent[] = [];
  private readonly streams = new Map<string, StreamState>();
  private readonly live = new EventEmitter();
  private offset = 0n;
  private appends = 0;

  constructor() {
    this.live.setMaxListeners(0);
    this.write('$epochs', { id: crypto.randomUUID(), type: '$epoch', data: {} });
  }

  private stream(streamId: string): StreamState {
    let state = this.streams.get(streamId);
    if (!state) this.streams.set(streamId, (state = { events: [], last: NO_STREAM, truncateBefore: 0n, deleted: false }));
    return state;
  }

  private write(streamId: string, e: EventData): StoredEvent {
    const state = this.stream(streamId);
    const revision = state.last === NO_STREAM ? 0n : state.last + 1n;
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
    state.events.push(stored);
    state.last = revision;
    return stored;
  }

  private setTruncateBefore(streamId: string, truncateBefore: bigint | 'all'): StoredEvent {
    // The server keeps the largest revision as "all of it" (long.MaxValue).
    const $tb = truncateBefore === 'all' ? Number.MAX_SAFE_INTEGER : Number(truncateBefore);
    return this.write(`$$${streamId}`, { id: crypto.randomUUID(), type: '$metadata', data: { $tb } });
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
        const state = server.streams.get(streamId);
        const current = state?.last ?? NO_STREAM;
        const deleted = state?.deleted ?? false;
        const ok =
          expected === ANY ||
          (expected === NO_STREAM && (current === NO_STREAM || deleted)) ||
          (expected === STREAM_EXISTS && current !== NO_STREAM && !deleted) ||
          (typeof expected === 'bigint' && expected === current);
        if (!ok) {
          throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected: expected as never, current: current as never });
        }
        const written = list.map((e) => server.write(streamId, e));
        if (state?.deleted) {
          // Recreating a soft-deleted stream: reads start at its first new event.
          state.deleted = false;
          state.truncateBefore = written[0].revision;
          server.setTruncateBefore(streamId, written[0].revision);
        }
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
      async deleteStream(streamId: string, options: { expectedRevision?: unknown } = {}) {
        alive();
        await Promise.resolve();
        const expected = options.expectedRevision ?? ANY;
        const state = server.streams.get(streamId);
        const current = state?.last ?? NO_STREAM;
        // A stream that never existed cannot be deleted, whatever is expected (KurrentDB issue #4637).
        const ok =
          current !== NO_STREAM &&
          (expected === ANY || (expected === STREAM_EXISTS && !state!.deleted) || (typeof expected === 'bigint' && expected === current));
        if (!ok) {
          throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected: expected as never, current: current as never });
        }
        state!.deleted = true;
        const marker = server.setTruncateBefore(streamId, 'all');
        return { position: marker.position };
      },
      readStream(streamId: string, options: { fromRevision?: bigint; maxCount?: number } = {}) {
        alive();
        const state = server.streams.get(streamId);
        const from = options.fromRevision ?? 0n;
        const events = state && !state.deleted ? state.events.filter((e) => e.revision >= state.truncateBefore) : [];
        if (!state || state.deleted || state.last === NO_STREAM) {
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
