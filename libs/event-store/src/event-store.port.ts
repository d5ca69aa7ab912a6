import type { AuditChain } from '#audit/domain/audit-chain.port.js';

/**
 * The event store port: the only way the service writes facts.
 * Two adapters implement it (embedded SQLite, EventStoreDB) and one contract suite
 * (test/contract/event-store.contract.ts) holds both to the same behaviour.
 */

/** Who caused an event: carried on every stored event. */
export interface EventMetadata {
  /** Merchant account the event belongs to (absent for platform-level events). */
  account_id?: string;
  /** `test` or `live`: the mode of the key that caused it. */
  mode?: 'test' | 'live';
  /** Id of the command/request that caused this event. */
  causation_id?: string;
  /** Id shared by every event caused by one request chain. */
  correlation_id?: string;
  /** Request id and idempotency key, when caused over HTTP. */
  request_id?: string;
  idempotency_key?: string | null;
  /** Clock time the command was decided (ISO 8601, ms, UTC). */
  occurred_at: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /** A UUID; the public id is `evt_` + its 32 hex digits. */
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
}

export interface RecordedEvent extends NewEvent {
  streamId: string;
  /** 0-based revision of this event in its stream. */
  revision: number;
  /** Opaque global position; compares correctly as a string (see positions.ts). */
  position: string;
}

/**
 * What the writer expects of the stream: `no_stream` (must not exist), `any`,
 * or the exact revision of its last event.
 */
export type ExpectedRevision = 'no_stream' | 'any' | number;

/**
 * The revision to expect after reading `history`: its last event's own revision (never
 * `history.length - 1`, which is wrong for a truncated or scavenged stream), or `no_stream`.
 */
export function expectedRevisionAfter(history: readonly Pick<RecordedEvent, 'revision'>[]): number | 'no_stream' {
  return history.length ? history[history.length - 1].revision : 'no_stream';
}

/** What an adapter may append to a stream it is deleting (see `deleteStreamsOlderThan`). */
export const PRUNED_EVENT_TYPE = 'stream.pruned';

export interface AppendResult {
  /** Revision of the last appended event. */
  nextExpectedRevision: number;
  /** Global position of the last appended event. */
  position: string;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** One stream's part of a multi-stream append. */
export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
}

export interface ReadAllOptions {
  /** Exclusive lower bound; omitted = from the first event. */
  after?: string | null;
  maxCount: number;
  /**
   * A hint from a reader that looks only at some event types (a follower): every event still comes
   * back, in order, but one of another type may come back with its `data` empty (`{}`), unparsed.
   * An adapter may ignore it and parse everything.
   */
  parseOnly?: ReadonlySet<string>;
}

/** What followers of the pipeline's batches are shown of an event (no data or metadata). */
export type EventBrief = Pick<RecordedEvent, 'streamId' | 'revision' | 'type' | 'position'>;

export interface EventStore {
  readonly kind: string;
  /** Appends atomically; throws WrongExpectedRevisionError when `expected` does not hold. */
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams in the order given (the global order of the events is the order of
   * `appends`; one stream may appear more than once, each part expecting the revision the part
   * before it leaves). Returns one result per part. A conflict is a WrongExpectedRevisionError
   * naming its stream. `atomicMultiStream` says what a conflict leaves behind:
   * - true (SQLite): one transaction, all or nothing — a conflict on any part writes none.
   * - false (EventStoreDB, which has no multi-stream transaction): sequential appends in order, each
   *   atomic on its own — a conflict on part k leaves parts 1…k−1 written, exactly as k−1 separate
   *   appends would. Callers must therefore only group steps that are each idempotent.
   */
  appendMany(appends: StreamAppend[]): Promise<AppendResult[]>;
  /** Whether appendMany is all or nothing. */
  readonly atomicMultiStream: boolean;
  /** The stream's events from `fromRevision` (inclusive), oldest first; [] when it does not exist. */
  readStream(streamId: string, fromRevision?: number): Promise<RecordedEvent[]>;
  /**
   * Events of every stream in global order, strictly after `after`: at most `maxCount`, possibly
   * fewer while more exist (the embedded store answers from the run it just appended); read again
   * from the last one's position until a read comes back empty.
   */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Position of the newest event, or null when the store is empty. */
  headPosition(): Promise<string | null>;
  /**
   * Best-effort wake-up: `listener` is called soon after events are appended (by this process or,
   * where the engine can tell, by another). Followers also poll, so a missed call only delays.
   */
  onAppended(listener: () => void): () => void;
  /**
   * Deletes whole streams whose name starts with `prefix` and whose last event was decided before
   * `before` (ISO 8601, the events' `occurred_at`), at most `limit` of them; returns how many. Only for
   * technical records that nothing projects (the idempotency keys' streams): a deleted stream reads as
   * absent and can be written again from `no_stream` (its revisions may continue where the deleted
   * ones ended: expect the last read event's own revision, see `expectedRevisionAfter`). A stream
   * written to after it was found old is left alone. Streams are found in the order of the log, and an
   * adapter may stop at the first event of the prefix that is not older than `before` (EventStoreDB):
   * the prefix's events must be stamped in log order, as the clock stamps them. A deleting adapter may
   * first append a `PRUNED_EVENT_TYPE` event to the stream (EventStoreDB); a reader that finds one
   * last reads the stream as absent. Optional: an adapter without it keeps the streams.
   */
  deleteStreamsOlderThan?(prefix: string, before: string, limit: number): Promise<number>;
  /**
   * The audit chain of the stored events (docs/audit.md), where the adapter keeps one: SQLite writes
   * it in each append's own transaction; EventStoreDB, which has no multi-stream transaction, by a
   * chaining follower right after (libs/audit/src/follower-chain.ts, docs/audit.md). Absent: no chain kept.
   */
  readonly auditChain?: AuditChain;
  close(): Promise<void>;
}
