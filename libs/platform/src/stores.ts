import type { EventStore } from '#event-store/event-store.port.js';
import { EventStoreDbEventStore } from '#event-store/eventstoredb-event-store.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { MongoReadStore } from '#read-store/mongo-read-store.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { type Config, eventStoreFile, readStoreFile } from './config.js';
import type { PipelineThreadFiles } from '#projection-runtime/pipeline-thread.js';
import type { CustomerKeyring } from '#customers/personal-data/customer-keys.js';
import { PersonalDataEventStore, storedEventStore } from '#customers/personal-data/personal-data-event-store.js';
import { UpcastingEventStore } from '#event-store/upcasting.js';
import { SERVICE_EVENT_VERSIONS } from './event-versions.js';

/** The event store chosen by configuration: EventStoreDB when EVENTSTORE_URL is set, else embedded. */
export function createEventStore(config: Config): EventStore {
  return config.eventStoreUrl ? new EventStoreDbEventStore(config.eventStoreUrl) : new SqliteEventStore(eventStoreFile(config), { writer: config.sqliteWriter });
}

/**
 * The event store as the service uses it: personal data encrypted on append under each customer's
 * data key and opened on read (docs/personal-data.md). Another decorator of the port composes around
 * or under it; `storedEventStore` finds the adapter under them all.
 */
export function withPersonalData(events: EventStore, keys: CustomerKeyring): EventStore {
  return new PersonalDataEventStore(events, keys);
}

/**
 * The event store with event versions (docs/event-versions.md): appends stamp each event's schema
 * version, reads bring older events to their type's current shape. Outermost, so upcasters see the
 * personal data opened.
 */
export function withEventVersions(events: EventStore, versions = SERVICE_EVENT_VERSIONS): EventStore {
  return new UpcastingEventStore(events, versions);
}

/** The read-model store chosen by configuration: MongoDB when MONGO_URL is set, else embedded. */
export function createReadStore(config: Config): ReadStore {
  return config.mongoUrl ? new MongoReadStore(config.mongoUrl) : new SqliteReadStore(readStoreFile(config), { writer: config.sqliteWriter });
}

/**
 * Where the projection pipeline runs its own thread (PROJECTIONS_THREAD=worker, the default): both
 * stores embedded, in files, with writer threads, in a process that runs the projections (not
 * ROLE=api). Otherwise (a production store, `inline`, `:memory:`) the pipeline runs on the event loop.
 */
export function pipelineThreadFiles(
  config: Config,
  decorated: EventStore,
  reads: ReadStore,
  projections: string,
  personalData?: PipelineThreadFiles['personalData'],
): PipelineThreadFiles | undefined {
  // A ROLE=api process runs no projection: it only reads the checkpoints.
  if (config.projectionsThread !== 'worker' || config.sqliteWriter !== 'thread' || config.role === 'api') return undefined;
  const events = storedEventStore(decorated);
  if (!(events instanceof SqliteEventStore) || !(reads instanceof SqliteReadStore) || events.file === ':memory:' || reads.file === ':memory:') return undefined;
  return { events: events.file, readModels: reads.file, projections, startCheckpointer: () => reads.startCheckpointer(), announced: () => events.announcedHead(), personalData };
}
