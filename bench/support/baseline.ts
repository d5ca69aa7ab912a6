import Database from 'better-sqlite3';
import type { EventStore, NewEvent } from '#event-store/event-store.port.js';
import { newEventUuid } from '#shared/ids.js';

/**
 * The plain baselines the store's figures are measured against in the same run: a better-sqlite3
 * insert loop writing the same rows (the append section) and a loop of single-event appends on a
 * fresh embedded store (the billing run).
 */

/** The small event both the measured appends and the baselines write. */
export function event(i: number): NewEvent {
  return {
    id: newEventUuid(),
    type: 'product.updated',
    data: { id: `prod_${i}`, changes: { name: `Product ${i}`, meta_data: { sku: `SKU-${i}` } } },
    metadata: { account_id: 'acct_bench', mode: 'test', occurred_at: '2026-11-23T10:00:00.000Z', request_id: `req_${i}` },
  };
}

/** The baseline: one transaction per commit, the same rows, no grouping. */
export function plainInsertLoop(file: string, commits: number, perCommit: number): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, stream_id TEXT NOT NULL,
    revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (stream_id, revision))`);
  const insert = db.prepare('INSERT INTO events (event_id, stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  const commit = db.transaction((stream: string, events: NewEvent[]) => {
    events.forEach((e, r) => insert.run(e.id, stream, r, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)));
  });
  const started = performance.now();
  for (let c = 0; c < commits; c++) commit(`product-${c}`, Array.from({ length: perCommit }, (_, i) => event(c * perCommit + i)));
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return commits / seconds;
}

/** Appends `events` single-event commits, each to its own stream, `concurrency` in flight: events per second. */
export async function plainAppends(store: EventStore, events: number, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < events) {
        const c = next++;
        await store.append(`product-${c}`, [event(c)], 'no_stream');
      }
    }),
  );
  return events / ((performance.now() - started) / 1000);
}
