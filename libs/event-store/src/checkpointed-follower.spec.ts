import { afterEach, describe, expect, jest, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { CheckpointedFollower, type FollowerOptions } from './checkpointed-follower.js';
import type { EventStore, ReadAllOptions, RecordedEvent } from './event-store.port.js';
import { SqliteEventStore } from './sqlite-event-store.js';

/** Acts on `act` events only (records them); passes the rest. */
class Recorder extends CheckpointedFollower {
  readonly acted: string[] = [];
  constructor(events: EventStore, store: SqliteReadStore, options: Partial<FollowerOptions> = {}) {
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

/** Stores in a fresh directory (the event store made by `eventStore`), closed with the followers after each test, and an append of one event to a new stream. */
function harness<E extends SqliteEventStore>(eventStore: (dir: string) => E) {
  const open: Array<{ close(): Promise<void> }> = [];
  const followers: Recorder[] = [];
  afterEach(async () => {
    for (const f of followers.splice(0)) await f.stop();
    for (const s of open.splice(0)) await s.close();
  });
  const stores = () => {
    const dir = mkdtempSync(join(tmpdir(), 'follower-'));
    const events = eventStore(dir);
    const store = new SqliteReadStore(join(dir, 'read.sqlite'));
    open.push(events, store);
    return { events, store };
  };
  const append = async (events: EventStore, type: string, n: number) =>
    (await events.append(`thing-${randomUUID()}`, [{ id: randomUUID(), type, data: { n }, metadata: { occurred_at: 'x' } }], 'no_stream')).position;
  return { stores, append, followers };
}

describe('CheckpointedFollower: checkpoint writes', () => {
  const { stores, append, followers } = harness((dir) => new SqliteEventStore(join(dir, 'events.sqlite')));

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
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(300);
    // At most one write per 300 ms whatever the machine's load (once when the appends are quick).
    expect(commit.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(commit.mock.calls.length).toBeLessThanOrEqual(Math.floor(elapsed / 300));
    expect(await store.getCheckpoint('test:recorder')).toBe(head);
  });
});

/**
 * The embedded store with two hooks, each run once: `afterEmptyRead` right after a read of the log came
 * back empty (before the reader does anything else), `afterHead` right after the head was taken. An
 * event appended there lands exactly in the window a follower must not lose.
 */
class WindowedStore extends SqliteEventStore {
  afterEmptyRead: (() => Promise<unknown>) | null = null;
  afterHead: (() => Promise<unknown>) | null = null;
  override async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const events = await super.readAll(options);
    const hook = this.afterEmptyRead;
    if (events.length === 0 && hook) {
      this.afterEmptyRead = null;
      await hook();
    }
    return events;
  }
  override async headPosition(): Promise<string | null> {
    const head = await super.headPosition();
    const hook = this.afterHead;
    if (hook) {
      this.afterHead = null;
      await hook();
    }
    return head;
  }
}

describe('CheckpointedFollower: never skips an event', () => {
  const { stores, append, followers } = harness((dir) => new WindowedStore(join(dir, 'events.sqlite')));

  test('on a store it never followed, an event appended right after its first read came back empty is handled', async () => {
    const { events, store } = stores();
    let appended = '';
    events.afterEmptyRead = async () => (appended = await append(events, 'act', 1));
    const f = new Recorder(events, store);
    followers.push(f);
    await f.start();
    for (let i = 0; i < 200 && !appended; i++) await new Promise((r) => setTimeout(r, 5));
    expect(appended).not.toBe('');
    await f.waitFor(appended);
    const next = await append(events, 'act', 2);
    await f.waitFor(next);
    expect(f.acted).toEqual(['1', '2']);
  });

  test('an event appended right after the head was taken at the start is handled (store with history)', async () => {
    const { events, store } = stores();
    await append(events, 'act', 0); // before the follower existed: not its business
    let appended = '';
    events.afterHead = async () => (appended = await append(events, 'act', 1));
    const f = new Recorder(events, store);
    followers.push(f);
    await f.start();
    expect(appended).not.toBe('');
    await f.waitFor(appended);
    expect(f.acted).toEqual(['1']);
  });

  test('started on an empty store, it has a checkpoint before anything is appended: a restart before it handled an event still handles it', async () => {
    const { events, store } = stores();
    // A long grace: the first follower sees the event but has not acted on it when its process ends.
    const first = new Recorder(events, store, { graceMs: 60_000 });
    followers.push(first);
    await first.start();
    expect(await store.getCheckpoint('test:recorder')).not.toBeNull();
    const position = await append(events, 'act', 1);
    // The process ends without a word (no stop); a new one starts on the same stores.
    const second = new Recorder(events, store);
    followers.push(second);
    await second.start();
    await second.waitFor(position);
    expect(second.acted).toEqual(['1']);
    expect(first.acted).toEqual([]);
  });
});
