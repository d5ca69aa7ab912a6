import type { EventStore } from '../../event-store/src/event-store.port.js';
import { EventStoreDbEventStore } from '../../event-store/src/eventstoredb-event-store.js';
import { SqliteEventStore } from '../../event-store/src/sqlite-event-store.js';
import { MongoReadStore } from '../../read-store/src/mongo-read-store.js';
import type { ReadStore } from '../../read-store/src/read-store.port.js';
import { SqliteReadStore } from '../../read-store/src/sqlite-read-store.js';
import { type Config, eventStoreFile, readStoreFile } from './config.js';

/** The event store chosen by configuration: EventStoreDB when EVENTSTORE_URL is set, else embedded. */
export function createEventStore(config: Config): EventStore {
  return config.eventStoreUrl ? new EventStoreDbEventStore(config.eventStoreUrl) : new SqliteEventStore(eventStoreFile(config), { writer: config.sqliteWriter });
}

/** The read-model store chosen by configuration: MongoDB when MONGO_URL is set, else embedded. */
export function createReadStore(config: Config): ReadStore {
  return config.mongoUrl ? new MongoReadStore(config.mongoUrl) : new SqliteReadStore(readStoreFile(config), { writer: config.sqliteWriter });
}
