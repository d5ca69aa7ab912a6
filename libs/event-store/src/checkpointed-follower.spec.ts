import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '../../read-store/src/sqlite-read-store.js';
import { CheckpointedFollower, type FollowerOptions } from './checkpointed-follower.js';
import type { RecordedEvent } from './event-store.port.js';
import { SqliteEventStore } from './sqlite-event-store.js';

/** Acts on `act` events only (records them); passes the rest. */
class Recorder extends CheckpointedFollower {
  readonly acted: string[] = [];
  constructor(events: SqliteEventStore, store: SqliteReadStore, options: Partial<FollowerOptions> = {}) {
    super(events, store, { name: 'test:recorder', pollMs: 10, ...options }, 'recorder');
  }
  /** Every event `handle` was given, by type. */
  readonly seen: string[] = [];
  protected async handle(event: RecordedEvent): Promise<boolean> {
    this.seen.push(event.type);
    if (event.type !== 'act') return false;
    this.acted.push((event.data as { n: number }).n.toString());
    return true;
  }
}

describe('CheckpointedFollower: checkpoint writes', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  const followers: Recorder[] = [];
  afterEach(async () => {
    for (const f of followers.splice(0)) await f.stop();
    for (const s of open.splice(0)) await s.close();
  });
  const stores = () => {
    const dir = mkdtempSync(join(tmpdir(), 'follower-'));
    const events = new SqliteEventStore(join(dir, 'events.sqlite'));
    const store = new SqliteReadStore(join(dir, 'read.sqlite'));
    open.push(events, store);
    return { events, store };
  };
  const append = async (events: SqliteEventStore, type: string, n: number) =>
    (await events.append(`thing-${randomUUID()}`, [{ id: randomUUID(), type, data: { n }, metadata: { occurred_at: 'x' } }], 'no_stream')).position;

  test('a follower naming its types (`types`) is handed only those, in order; the others are passed', async () => {
    const { events, store } = stores();
    const f = new Recorder(events, store, { types: ['act'] });
    followers.push(f);
    await f.start();
    await append(events, 'pass', 1);
    await append(events, 'act', 2);
    const last = await append(events, 'pass', 3);
    await f.waitFor(last);
    expect(f.seen).toEqual(['act']);
    expect(f.acted).toEqual(['2']);
  });

  test('events that need nothing do not cost a read-store commit each; an acted-on event moves the checkpoint at once; stop writes where it got to', async () => {
    const { events, store } = stores();
    const f = new Recorder(events, store, { checkpointEveryMs: 60_000 });
    followers.push(f);
    await f.start();
    const commit = jest.spyOn(store, 'commit');
    let last = '';
    for (let i = 0; i < 20; i++) {
      last = await append(events, 'pass', i);
      await f.waitFor(last); // one batch per event
    }
    // 20 batches read, each followed by an idle moment: no commit for them (not yet due).
    expect(commit).not.toHaveBeenCalled();
    const acted = await append(events, 'act', 20);
    await f.waitFor(acted);
    expect(f.acted).toEqual(['20']);
    expect(await store.getCheckpoint('test:recorder')).toBe(acted);
    const tail = await append(events, 'pass', 21);
    await f.waitFor(tail);
    await f.stop();
    expect(await store.getCheckpoint('test:recorder')).toBe(tail);
    // A follower started later begins there: nothing is acted on twice.
    const again = new Recorder(events, store);
    followers.push(again);
    await again.start();
    await again.waitFor(await append(events, 'act', 22));
    expect(again.acted).toEqual(['22']);
  });

  test('the pass-only checkpoint is written at most every checkpointEveryMs, and catches up with an idle follower', async () => {
    const { events, store } = stores();
    const f = new Recorder(events, store, { checkpointEveryMs: 300, pollMs: 20 });
    followers.push(f);
    await f.start();
    const commit = jest.spyOn(store, 'commit');
    const started = Date.now();
    // Appended in one go: read in three batches of up to 100, then idle: written once, when due.
    const positions = await Promise.all(Array.from({ length: 250 }, (_, i) => append(events, 'pass', i)));
    const head = positions.sort().at(-1)!;
    await f.waitFor(head);
    for (let i = 0; i < 300 && (await store.getCheckpoint('test:recorder')) !== head; i++) await new Promise((r) => setTimeout(r, 10));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(commit.mock.calls.length).toBe(1);
    expect(await store.getCheckpoint('test:recorder')).toBe(head);
  });
});
