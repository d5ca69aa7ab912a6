import { randomUUID } from 'node:crypto';
import { ANY, BACKWARDS, END, EventStoreDBClient, FORWARDS, NO_STREAM, START, StreamNotFoundError, WrongExpectedVersionError, excludeSystemEvents, jsonEvent } from '@eventstore/db-client';
import type {
  AllStreamRecordedEvent,
  AllStreamSubscription,
  AppendExpectedRevision,
  Direction,
  Position,
  ReadPosition,
  RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { type AppendResult, type EventMetadata, type EventStore, type ExpectedRevision, type NewEvent, PRUNED_EVENT_TYPE, type ReadAllOptions, type RecordedEvent, type StreamAppend, WrongExpectedRevisionError } from './event-store.port.js';
import { decodePosition, encodePosition } from './positions.js';
import { FollowerAuditChain } from '#audit/follower-chain.js';

/** Largest page asked of the server in one `$all` read. */
const MAX_BATCH = 1000;
/** Page size when walking `$all` backwards to find the newest non-system event. */
const HEAD_BATCH = 100;
/** Delay before re-opening a dropped `$all` subscription. */
const RESUBSCRIBE_DELAY_MS = 1000;

/**
 * Event store on EventStoreDB (22.6 or later: events read from a stream must carry their
 * position in the transaction log). Streams are used as named by the caller (`<category>-<id>`).
 *
 * Global positions are the server's `{commit, prepare}` encoded with `encodePosition`; the
 * server's system events (`$`-prefixed types or streams) are never returned.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb';
  private readonly client: EventStoreDBClient;
  private readonly redact: (text: string) => string;
  /** Keyed by a token so the same function registered twice is two registrations. */
  private readonly listeners = new Map<symbol, () => void>();
  private subscription: AllStreamSubscription | null = null;
  private resubscribeTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Per prefix, how far `deleteStreamsOlderThan` has looked through `$all` (this instance's memory). */
  private readonly pruneCursors = new Map<string, { from: ReadPosition; seen: string | null }>();
  /**
   * The audit chain (docs/audit.md): no multi-stream transaction here, so a chaining follower writes
   * each account's entries to its `audit_chain-<account>` stream right after the events.
   */
  readonly auditChain = new FollowerAuditChain(this);
  /** The server's version check, made once before the first read or write (retried after a network error). */
  private serverChecked: Promise<void> | null = null;

  /** `client` is for tests (a fake with the client's shape); the service passes only the connection string. */
  constructor(connectionString: string, client?: EventStoreDBClient) {
    this.redact = redactor(connectionString);
    this.client = client ?? EventStoreDBClient.connectionString(connectionString);
  }

  /**
   * Refuses a server older than 22.6 (whose stream reads carry no log position), using the version the
   * server reports through its server-features endpoint ("unknown" before 21.10, which has none).
   */
  private checkServer(): Promise<void> {
    if (!this.serverChecked) {
      const capabilities = (this.client as unknown as { capabilities: Promise<{ serverVersion: string }> }).capabilities;
      this.serverChecked = Promise.resolve(capabilities).then(
        (features) => assertSupportedServer(features.serverVersion),
        (error) => {
          this.serverChecked = null;
          throw error;
        },
      );
    }
    return this.serverChecked;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    await this.checkServer();
    let result;
    try {
      result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data, metadata: e.metadata })),
        { expectedRevision: toEsdbExpected(expected) },
      );
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedRevisionError(
          streamId,
          expected,
          actual === NO_STREAM || actual < 0n ? 'no_stream' : Number(actual),
        );
      }
      throw error;
    }
    const nextExpectedRevision = Number(result.nextExpectedRevision);
    const position = result.position ?? (await this.appendedPosition(streamId, result.nextExpectedRevision));
    this.notify();
    return { nextExpectedRevision, position: encodePosition(position.commit, position.prepare) };
  }

  /**
   * EventStoreDB has no transaction across streams: the parts are appended one after another in the
   * given order, each with its own expected revision; a conflict stops there, the parts before it stay
   * written (see the port).
   */
  readonly atomicMultiStream = false;

  async appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    if (appends.some((a) => a.events.length === 0)) throw new Error('append needs at least one event');
    const results: AppendResult[] = [];
    for (const a of appends) results.push(await this.append(a.streamId, a.events, a.expected));
    return results;
  }

  /** Fallback when the append response carries no position: read it from the event itself. */
  private async appendedPosition(streamId: string, revision: bigint): Promise<Position> {
    for await (const resolved of this.client.readStream(streamId, { fromRevision: revision, maxCount: 1 })) {
      if (resolved.event?.position) return resolved.event.position;
    }
    throw new Error(`stream ${streamId}: no position for revision ${revision} (EventStoreDB 22.6 or later is required)`);
  }

  async readStream(streamId: string, fromRevision = 0): Promise<RecordedEvent[]> {
    await this.checkServer();
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        fromRevision: BigInt(fromRevision),
        direction: FORWARDS,
        resolveLinkTos: false,
      });
      for await (const resolved of read) {
        if (resolved.event) out.push(toRecorded(resolved.event));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  /**
   * `$all` forwards, strictly after `after`. The server reads from a position inclusively and
   * returns system events we skip, so this reads in pages until it has `maxCount` events or
   * reaches the end of the log (never returns [] while user events remain).
   */
  async readAll({ after, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    if (maxCount <= 0) return [];
    const out: RecordedEvent[] = [];
    let from: ReadPosition = after ? decodePosition(after) : START;
    let seen: string | null = after ?? null;
    const batch = Math.max(2, Math.min(maxCount + 1, MAX_BATCH));
    while (out.length < maxCount) {
      const page = await this.readAllPage(from, FORWARDS, batch);
      for (const event of page) {
        if (seen !== null && positionOf(event) <= seen) continue;
        if (out.length < maxCount && !isSystem(event)) out.push(toRecorded(event));
      }
      if (page.length < batch) break;
      const last = page[page.length - 1].position;
      from = last;
      seen = encodePosition(last.commit, last.prepare);
    }
    return out;
  }

  async headPosition(): Promise<string | null> {
    let from: ReadPosition = END;
    let seen: string | null = null;
    for (;;) {
      const page = await this.readAllPage(from, BACKWARDS, HEAD_BATCH);
      for (const event of page) {
        if (seen !== null && positionOf(event) >= seen) continue;
        if (!isSystem(event)) return positionOf(event);
      }
      if (page.length < HEAD_BATCH) return null;
      const last = page[page.length - 1].position;
      from = last;
      seen = encodePosition(last.commit, last.prepare);
    }
  }

  /** One page of `$all`, drained whole (leaving the iteration early would leave the gRPC call running). */
  private async readAllPage(from: ReadPosition, direction: Direction, maxCount: number): Promise<AllStreamRecordedEvent[]> {
    await this.checkServer();
    const page: AllStreamRecordedEvent[] = [];
    for await (const resolved of this.client.readAll({ fromPosition: from, direction, maxCount, resolveLinkTos: false })) {
      if (resolved.event) page.push(resolved.event);
    }
    return page;
  }

  /**
   * Soft-deletes the streams of `prefix` whose last event is older than `before` (see the port).
   * EventStoreDB lists no streams: `$all` is read forward from where this instance's last call
   * stopped (the log's start after a restart), and the first event of the prefix not older than
   * `before` ends the walk (the next call starts there). Each stream found is read whole; if its last
   * event is old, a small `stream.pruned` event is appended expecting that event's revision (a
   * request that wrote to the stream since wins: the stream is kept) and the stream is soft-deleted
   * expecting the marker's revision. A soft-deleted stream reads as not found, and the next append
   * from `no_stream` (or `any`, or its last revision) recreates it, its revisions continuing after the
   * deleted ones. The deleted events leave disk at the server's next scavenge, which keeps only a
   * stream's last event — the marker, not a stored response.
   */
  async deleteStreamsOlderThan(prefix: string, before: string, limit: number): Promise<number> {
    if (!prefix) throw new Error('deleteStreamsOlderThan needs a stream prefix');
    let cursor = this.pruneCursors.get(prefix) ?? { from: START as ReadPosition, seen: null as string | null };
    const examined = new Set<string>();
    let deleted = 0;
    walk: for (;;) {
      const page = await this.readAllPage(cursor.from, FORWARDS, MAX_BATCH);
      for (const event of page) {
        const at = positionOf(event);
        if (cursor.seen !== null && at <= cursor.seen) continue;
        if (deleted >= limit) break walk;
        if (!isSystem(event) && event.streamId.startsWith(prefix) && event.type !== PRUNED_EVENT_TYPE) {
          if (!(occurredAt(event) < before)) break walk;
          if (!examined.has(event.streamId)) {
            examined.add(event.streamId);
            if (await this.pruneStream(event.streamId, before)) deleted++;
          }
        }
        cursor = { from: event.position, seen: at };
      }
      if (page.length < MAX_BATCH) break;
    }
    this.pruneCursors.set(prefix, cursor);
    return deleted;
  }

  /** Marks and soft-deletes one stream if its last event is older than `before`; false if it was kept or is gone. */
  private async pruneStream(streamId: string, before: string): Promise<boolean> {
    const history = await this.readStream(streamId);
    if (history.length === 0) return false;
    const last = history[history.length - 1];
    let markerRevision = last.revision;
    if (last.type !== PRUNED_EVENT_TYPE) {
      if (!(String(last.metadata.occurred_at) < before)) return false;
      try {
        const marked = await this.append(
          streamId,
          [{ id: randomUUID(), type: PRUNED_EVENT_TYPE, data: { before }, metadata: { occurred_at: last.metadata.occurred_at } }],
          last.revision,
        );
        markerRevision = marked.nextExpectedRevision;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) return false;
        throw error;
      }
    }
    try {
      await this.client.deleteStream(streamId, { expectedRevision: BigInt(markerRevision) });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError || error instanceof StreamNotFoundError) return false;
      throw error;
    }
    return true;
  }

  onAppended(listener: () => void): () => void {
    const token = Symbol('listener');
    this.listeners.set(token, listener);
    this.subscribe();
    return () => {
      this.listeners.delete(token);
      if (this.listeners.size === 0) void this.unsubscribe();
    };
  }

  private notify(): void {
    for (const listener of [...this.listeners.values()]) {
      try {
        listener();
      } catch (error) {
        process.stderr.write(`[eventstoredb] onAppended listener threw: ${this.describe(error)}\n`);
      }
    }
  }

  /** One live `$all` subscription from the end, while there is at least one listener. */
  private subscribe(): void {
    if (this.closed || this.subscription || this.resubscribeTimer || this.listeners.size === 0) return;
    const sub = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    this.subscription = sub;
    const dropped = (error?: unknown) => {
      if (this.subscription !== sub) return; // stopped on purpose, or already handled
      this.subscription = null;
      sub.unsubscribe().catch(() => undefined);
      if (this.closed || this.listeners.size === 0) return;
      const reason = error === undefined ? 'subscription ended' : this.describe(error);
      process.stderr.write(`[eventstoredb] $all subscription dropped (${reason}); resubscribing in ${RESUBSCRIBE_DELAY_MS}ms\n`);
      this.resubscribeTimer = setTimeout(() => {
        this.resubscribeTimer = null;
        this.subscribe();
      }, RESUBSCRIBE_DELAY_MS);
      this.resubscribeTimer.unref();
    };
    sub.on('data', () => this.notify());
    sub.on('error', (error) => dropped(error));
    sub.on('end', () => dropped());
    sub.on('close', () => dropped());
  }

  private async unsubscribe(): Promise<void> {
    if (this.resubscribeTimer) clearTimeout(this.resubscribeTimer);
    this.resubscribeTimer = null;
    const sub = this.subscription;
    this.subscription = null;
    if (sub) await sub.unsubscribe().catch(() => undefined);
  }

  private describe(error: unknown): string {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return this.redact(text);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.unsubscribe();
    await this.client.dispose();
  }
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  if (!Number.isSafeInteger(expected)) throw new Error(`invalid expected revision: ${expected}`);
  // -1 is "the stream has no events", as in the embedded store.
  return expected < 0 ? NO_STREAM : BigInt(expected);
}

function positionOf(event: AllStreamRecordedEvent): string {
  return encodePosition(event.position.commit, event.position.prepare);
}

/** The `occurred_at` an event of ours carries (one without it: the server's time of writing it). */
function occurredAt(event: AllStreamRecordedEvent): string {
  const metadata = event.metadata;
  if (metadata && typeof metadata === 'object' && !(metadata instanceof Uint8Array)) {
    const value = (metadata as Record<string, unknown>).occurred_at;
    if (typeof value === 'string') return value;
  }
  return event.created.toISOString();
}

function isSystem(event: { type: string; streamId: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** Oldest EventStoreDB whose stream reads carry each event's position in the log. */
export const MIN_SERVER_VERSION = [22, 6] as const;

/** Throws a clear error for a server older than 22.6 or one that does not say its version (before 21.10). */
export function assertSupportedServer(serverVersion: string): void {
  const match = /^(\d+)\.(\d+)/.exec(serverVersion ?? '');
  const [minMajor, minMinor] = MIN_SERVER_VERSION;
  const ok = match !== null && (Number(match[1]) > minMajor || (Number(match[1]) === minMajor && Number(match[2]) >= minMinor));
  if (!ok) {
    throw new Error(
      `EventStoreDB ${minMajor}.${minMinor} or later is required (the server reports version ${serverVersion || 'unknown'}): older servers do not give events read from a stream their position in the log`,
    );
  }
}

function toRecorded(event: EsdbRecordedEvent): RecordedEvent {
  // The client turns an absent position into {commit: 0, prepare: 0} (protobuf defaults); position 0
  // is the log's first record, always the server's own epoch event, never one of ours.
  if (!event.position || (event.position.commit === 0n && event.position.prepare === 0n)) {
    throw new Error(`event ${event.id} in ${event.streamId} has no position (EventStoreDB 22.6 or later is required)`);
  }
  const metadata =
    event.metadata === undefined
      ? { occurred_at: event.created.toISOString() }
      : jsonObject(event.metadata, `metadata of event ${event.id} in ${event.streamId}`);
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    type: event.type,
    data: jsonObject(event.data, `data of event ${event.id} in ${event.streamId}`),
    metadata: metadata as EventMetadata,
    position: encodePosition(event.position.commit, event.position.prepare),
  };
}

/** The client parses JSON events; bytes (binary events, unparsable metadata) are decoded here. */
function jsonObject(value: unknown, what: string): Record<string, unknown> {
  let parsed = value;
  if (value instanceof Uint8Array) {
    try {
      parsed = JSON.parse(Buffer.from(value).toString('utf8'));
    } catch {
      throw new Error(`${what} is not JSON`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${what} is not a JSON object`);
  return parsed as Record<string, unknown>;
}

/** Removes the connection string's user info (and password) from text meant for logs. */
function redactor(connectionString: string): (text: string) => string {
  const rest = connectionString.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const main = rest.split('?')[0];
  const at = main.lastIndexOf('@');
  const userInfo = at >= 0 ? main.slice(0, at) : '';
  const password = userInfo.includes(':') ? userInfo.slice(userInfo.indexOf(':') + 1) : '';
  const secrets = [userInfo, password, safeDecode(password)].filter((s) => s.length >= 3);
  return (text) => {
    let out = text.replace(/(:\/\/)[^\s/?#]*@/g, '$1');
    for (const secret of secrets) out = out.split(secret).join('***');
    return out;
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
