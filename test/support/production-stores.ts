import { createHash } from 'node:crypto';
import { FollowerAuditChain } from '#audit/follower-chain.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreDbEventStore } from '#event-store/eventstoredb-event-store.js';
import { laterPosition } from '#event-store/positions.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { EventStoreDbStandIn } from './eventstoredb-stand-in.js';
import { MongoStandIn, mongoReadStoreOn } from './mongo-stand-in.js';
import {
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type StreamAppend,
  WrongExpectedRevisionError,
} from '#event-store/event-store.port.js';

/**
 * The production stores for the HTTP tests, chosen by the same variables as the service and the
 * contract suites: EVENTSTORE_URL (EventStoreDB) and MONGO_URL (MongoDB). Unset, the tests use the
 * embedded stores in their temporary DATA_DIR.
 *
 * Each test app (each DATA_DIR) gets stores of its own on the shared servers, as a fresh DATA_DIR
 * gets fresh SQLite files: its own MongoDB database (`billing_t<hash of DATA_DIR>`), and on
 * EventStoreDB its own streams (a prefix, stripped on the way back) read from the point of `$all`
 * where the test app first started. A restart on the same DATA_DIR finds the same stores.
 */
export interface ProductionStores {
  /** Variables for the service's configuration (what a child process is started with). */
  env: Record<string, string>;
  /** The event store to inject (EventStoreDB, namespaced to this DATA_DIR), when EVENTSTORE_URL is set. */
  eventStore?: EventStore;
  /** The read store to inject (TEST_STORES=stand-ins only; MONGO_URL goes through `env`). */
  readStore?: ReadStore;
}

export function productionStoreEnv(dataDir: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  if (env.EVENTSTORE_URL) out.EVENTSTORE_URL = env.EVENTSTORE_URL;
  if (env.MONGO_URL) out.MONGO_URL = withDatabase(env.MONGO_URL, `billing_t${tag(dataDir)}`);
  return out;
}

export async function productionStores(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<ProductionStores> {
  if (env.TEST_STORES === 'stand-ins') return standIns(dataDir);
  const out: ProductionStores = { env: productionStoreEnv(dataDir, env) };
  if (env.EVENTSTORE_URL) out.eventStore = await NamespacedEventStore.open(new EventStoreDbEventStore(env.EVENTSTORE_URL), dataDir);
  return out;
}

/**
 * TEST_STORES=stand-ins: the production adapters' own code on the in-memory stand-ins of their
 * servers (one of each per test process, shared by its test apps as real servers are), to run the
 * HTTP suites through the same path as EVENTSTORE_URL / MONGO_URL where no server is at hand.
 */
let servers: { events: EventStoreDbStandIn; mongo: Map<string, MongoStandIn> } | null = null;

async function standIns(dataDir: string): Promise<ProductionStores> {
  servers ??= { events: new EventStoreDbStandIn(), mongo: new Map() };
  let db = servers.mongo.get(dataDir);
  if (!db) servers.mongo.set(dataDir, (db = new MongoStandIn()));
  const eventStore = await NamespacedEventStore.open(new EventStoreDbEventStore('esdb://stand-in.invalid:2113?tls=false', servers.events.client()), dataDir);
  return { env: {}, eventStore, readStore: mongoReadStoreOn(db) };
}

/** 12 hex digits naming a DATA_DIR. */
function tag(dataDir: string): string {
  return createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
}

/** The URL with its path's database replaced (query string kept). */
export function withDatabase(url: string, database: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(\/[^?]*)?(\?.*)?$/i.exec(url);
  if (!match) throw new Error('MONGO_URL is not a mongodb:// URL');
  return `${match[1]}/${database}${match[3] ?? ''}`;
}

/**
 * One test app's part of a shared event store: its streams carry a prefix, and `$all` is read from
 * where the app first started (kept in DATA_DIR), skipping other apps' events. The head is the newest
 * of its own events, found by reading forward from the last one seen.
 */
export class NamespacedEventStore implements EventStore {
  readonly kind: string;
  private scanned: string | null;
  private head: string | null = null;
  /** This namespace's own audit chain (its streams carry the prefix too; docs/audit.md). */
  readonly auditChain = new FollowerAuditChain(this);

  private constructor(
    private readonly inner: EventStore,
    private readonly prefix: string,
    private readonly origin: string | null,
  ) {
    this.kind = inner.kind;
    this.scanned = origin;
  }

  static async open(inner: EventStore, dataDir: string): Promise<NamespacedEventStore> {
    const file = join(dataDir, 'test-event-namespace.json');
    let saved: { prefix: string; origin: string | null };
    if (existsSync(file)) saved = JSON.parse(readFileSync(file, 'utf8'));
    else {
      saved = { prefix: `t${tag(dataDir)}_`, origin: await inner.headPosition() };
      writeFileSync(file, JSON.stringify(saved));
    }
    return new NamespacedEventStore(inner, saved.prefix, saved.origin);
  }

  private own(e: RecordedEvent): boolean {
    return e.streamId.startsWith(this.prefix);
  }

  private strip(e: RecordedEvent): RecordedEvent {
    return { ...e, streamId: e.streamId.slice(this.prefix.length) };
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      return await this.inner.append(this.prefix + streamId, events, expected);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw new WrongExpectedRevisionError(streamId, error.expected, error.actual);
      throw error;
    }
  }

  get atomicMultiStream(): boolean {
    return this.inner.atomicMultiStream;
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult[]> {
    try {
      return await this.inner.appendMany(appends.map((a) => ({ ...a, streamId: this.prefix + a.streamId })));
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw new WrongExpectedRevisionError(error.streamId.slice(this.prefix.length), error.expected, error.actual);
      throw error;
    }
  }

  async readStream(streamId: string, fromRevision?: number): Promise<RecordedEvent[]> {
    return (await this.inner.readStream(this.prefix + streamId, fromRevision)).map((e) => this.strip(e));
  }

  async readAll({ after, maxCount }: ReadAllOptions): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    // Nothing before the origin is this namespace's (a follower's "before the first event" reads from the origin).
    let from = laterPosition(after ?? null, this.origin);
    const page = Math.max(maxCount, 1000);
    while (out.length < maxCount) {
      const events = await this.inner.readAll({ after: from, maxCount: page });
      for (const e of events) {
        if (this.own(e)) out.push(this.strip(e));
        if (out.length === maxCount) break;
      }
      if (events.length < page) break;
      from = events[events.length - 1].position;
    }
    return out;
  }

  async headPosition(): Promise<string | null> {
    for (;;) {
      const events = await this.inner.readAll({ after: this.scanned, maxCount: 1000 });
      for (const e of events) if (this.own(e)) this.head = e.position;
      if (events.length) this.scanned = events[events.length - 1].position;
      if (events.length < 1000) return this.head;
    }
  }

  async deleteStreamsOlderThan(prefix: string, before: string, limit: number): Promise<number> {
    if (!this.inner.deleteStreamsOlderThan) throw new Error(`the ${this.inner.kind} event store cannot delete streams`);
    return this.inner.deleteStreamsOlderThan(this.prefix + prefix, before, limit);
  }

  onAppended(listener: () => void): () => void {
    return this.inner.onAppended(listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
