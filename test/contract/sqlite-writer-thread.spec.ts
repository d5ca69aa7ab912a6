import Database from 'better-sqlite3';
import { storedEventStore } from '#customers/personal-data/personal-data-event-store.js';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { WrongExpectedRevisionError } from '#event-store/event-store.port.js';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { UniqueConstraintError } from '#read-store/read-store.port.js';
import { isStoreUnavailable } from '#shared/store-unavailable.js';

/**
 * The embedded stores' writer thread (SQLITE_WRITER=thread, the default for a file): what it must keep
 * of the inline stores' guarantees, and what happens when it stops.
 */
const dir = mkdtempSync(join(tmpdir(), 'writer-thread-'));
const file = (name: string) => join(dir, `${name}-${randomUUID().slice(0, 8)}.sqlite`);
const ev = (type = 't') => ({ id: randomUUID(), type, data: { n: 1 }, metadata: { occurred_at: '2026-01-01T00:00:00.000Z' } });
/** The store's writer thread, started (by a first write) if it is not yet. */
const workerOf = (store: unknown): Worker | null => (store as { writer: { worker: Worker | null } }).writer.worker;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops a store's writer thread in the middle of a write: another connection holds the write lock, so
 * the thread's transaction waits for it (busy_timeout); the thread is terminated while it waits and
 * the lock is released, so it dies before its transaction can commit.
 */
async function stopWriterMidWrite(path: string, worker: Worker, write: () => Promise<unknown>[]) {
  const lock = new Database(path);
  lock.exec('BEGIN IMMEDIATE');
  const pending = write();
  await sleep(100); // the thread is waiting for the lock
  const terminated = worker.terminate();
  lock.exec('COMMIT');
  lock.close();
  await terminated;
  return Promise.allSettled(pending);
}

describe('event store, writer thread', () => {
  test('an append resolves once its group is committed: another connection on the file sees it at once', async () => {
    const path = file('events');
    const store = new SqliteEventStore(path);
    await store.append('thing-1', [ev('a'), ev('b')], 'no_stream');
    expect(workerOf(store)).not.toBeNull(); // the thread did the commit
    const other = new Database(path, { readonly: true });
    expect(other.prepare("SELECT type FROM events WHERE stream_id = 'thing-1' ORDER BY revision").all()).toEqual([{ type: 'a' }, { type: 'b' }]);
    other.close();
    await store.close();
  });

  test('the thread stopped with appends in flight: each rejects as store unavailable, nothing is written, the next append starts a new thread', async () => {
    const path = file('crash');
    const store = new SqliteEventStore(path);
    await store.append('thing-0', [ev()], 'no_stream');
    const worker = workerOf(store)!;
    const settled = await stopWriterMidWrite(path, worker, () =>
      Array.from({ length: 5 }, (_, i) =>
        store.appendMany([
          { streamId: `thing-a${i}`, events: [ev(), ev()], expected: 'no_stream' },
          { streamId: `thing-b${i}`, events: [ev()], expected: 'no_stream' },
        ]),
      ),
    );
    for (const s of settled) {
      expect(s.status).toBe('rejected');
      const reason = (s as PromiseRejectedResult).reason as Error;
      expect(reason.message).toMatch(/writer thread .* stopped/);
      expect(isStoreUnavailable(reason)).toBe(true);
    }
    expect((store as unknown as { writerFailure: Error | null }).writerFailure).not.toBeNull();
    expect((await store.readAll({ maxCount: 100 })).map((e) => e.streamId)).toEqual(['thing-0']);
    const after = await store.append('thing-after', [ev()], 'no_stream');
    expect(after.nextExpectedRevision).toBe(0);
    expect(workerOf(store)).not.toBe(worker);
    expect((store as unknown as { writerFailure: Error | null }).writerFailure).toBeNull();
    await store.close();
  });

  test('two stores on one file (two processes): expected revisions still conflict across their threads, exactly one wins', async () => {
    const path = file('two');
    const first = new SqliteEventStore(path);
    const second = new SqliteEventStore(path);
    await first.append('thing-shared', [ev()], 'no_stream');
    for (let round = 0; round < 5; round++) {
      const revision = round;
      const settled = await Promise.allSettled([first.append('thing-shared', [ev('one')], revision), second.append('thing-shared', [ev('two')], revision)]);
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(1);
      const lost = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason).toBeInstanceOf(WrongExpectedRevisionError);
    }
    expect((await first.readStream('thing-shared')).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5]);
    await first.close();
    await second.close();
  });

  test("listeners hear this store's own appends once (its thread's commits are not news again) and another store's on the file", async () => {
    const path = file('listen');
    const store = new SqliteEventStore(path);
    const other = new SqliteEventStore(path);
    let heard = 0;
    const off = store.onAppended(() => heard++);
    await store.append('thing-l1', [ev()], 'no_stream');
    await store.append('thing-l2', [ev()], 'no_stream');
    await sleep(350); // several watch intervals
    expect(heard).toBe(2);
    await other.append('thing-l3', [ev()], 'no_stream');
    await sleep(350);
    expect(heard).toBe(3);
    off();
    await store.close();
    await other.close();
  });

  test('close() waits for appends in flight: each resolves, and a reopened store has them', async () => {
    const path = file('close');
    const store = new SqliteEventStore(path);
    const appends = Array.from({ length: 20 }, (_, i) => store.append(`thing-c${i}`, [ev()], 'no_stream'));
    await store.close();
    expect((await Promise.all(appends)).map((r) => r.nextExpectedRevision)).toEqual(Array(20).fill(0));
    const reopened = new SqliteEventStore(path);
    expect((await reopened.readAll({ maxCount: 100 })).length).toBe(20);
    await reopened.close();
  });
});

describe('read store, writer thread', () => {
  const spec = { name: 'things', indexes: [{ fields: ['code'], unique: true }, { fields: ['owner', 'rank'] }] };

  test('commit resolves once committed (read your writes on this thread), index columns filled; a unique conflict lands nothing', async () => {
    const store = new SqliteReadStore(file('reads'));
    await store.ensureCollections([spec]);
    await store.commit([{ collection: 'things', id: 't1', doc: { id: 't1', code: 'A', owner: 'o', rank: 2 } }], { name: 'p', position: '0001' });
    expect(workerOf(store)).not.toBeNull();
    expect(await store.get('things', 't1')).toEqual({ id: 't1', code: 'A', owner: 'o', rank: 2 });
    expect(await store.find('things', { where: { owner: 'o' }, orderBy: { field: 'rank', direction: 'asc' }, limit: 10 })).toHaveLength(1);
    const refused = store.commit(
      [
        { collection: 'things', id: 't2', doc: { id: 't2', code: 'B', owner: 'o', rank: 1 } },
        { collection: 'things', id: 't3', doc: { id: 't3', code: 'A', owner: 'o', rank: 3 } },
      ],
      { name: 'p', position: '0002' },
    );
    await expect(refused).rejects.toBeInstanceOf(UniqueConstraintError);
    expect(await store.get('things', 't2')).toBeNull();
    expect(await store.getCheckpoint('p')).toBe('0001');
    await store.close();
  });

  test('the thread stopped with a commit in flight: the commit rejects as store unavailable, nothing of it lands; the next commit works', async () => {
    const path = file('reads-crash');
    const store = new SqliteReadStore(path);
    await store.ensureCollections([spec]);
    await store.commit([{ collection: 'things', id: 't0', doc: { id: 't0', code: 'Z', owner: 'o', rank: 0 } }], { name: 'p', position: '0001' });
    const worker = workerOf(store)!;
    const docs = Array.from({ length: 50 }, (_, i) => ({ collection: 'things', id: `t${i + 1}`, doc: { id: `t${i + 1}`, code: `C${i}`, owner: 'o', rank: i } }));
    const [settled] = await stopWriterMidWrite(path, worker, () => [store.commit(docs, { name: 'p', position: '0002' })]);
    expect(settled.status).toBe('rejected');
    expect(isStoreUnavailable((settled as PromiseRejectedResult).reason)).toBe(true);
    expect((await store.getMany('things', docs.map((d) => d.id))).size).toBe(0);
    expect(await store.getCheckpoint('p')).toBe('0001');
    await store.commit(docs, { name: 'p', position: '0003' });
    expect(await store.getCheckpoint('p')).toBe('0003');
    expect((await store.getMany('things', docs.map((d) => d.id))).size).toBe(50);
    await store.close();
  });

  test('a column added by ensureCollections after the thread prepared its upsert is filled by later commits', async () => {
    const store = new SqliteReadStore(file('reads-migrate'));
    await store.ensureCollections([{ name: 'things', indexes: [{ fields: ['owner'] }] }]);
    await store.commit([{ collection: 'things', id: 't1', doc: { id: 't1', owner: 'o', colour: 'red' } }]);
    await store.ensureCollections([{ name: 'things', indexes: [{ fields: ['owner'] }, { fields: ['colour'] }] }]);
    await store.commit([{ collection: 'things', id: 't2', doc: { id: 't2', owner: 'o', colour: 'blue' } }]);
    const found = await store.find<{ id: string }>('things', { where: { colour: 'blue' }, orderBy: { field: 'owner', direction: 'asc' }, limit: 10 });
    expect(found.map((d) => d.id)).toEqual(['t2']);
    await store.close();
  });
});

describe('WAL checkpoints beside the commits', () => {
  /** The rows of `sql` in the database file alone (its WAL left behind): what a checkpoint copied there. */
  async function inDatabaseFile(path: string, sql: string, wanted: number): Promise<number> {
    let rows = 0;
    for (let i = 0; i < 60 && rows < wanted; i++) {
      await sleep(50);
      const copy = `${path}.copy-${i}`;
      copyFileSync(path, copy);
      try {
        const db = new Database(copy, { readonly: true });
        rows = (db.prepare(sql).get() as { n: number }).n;
        db.close();
      } catch {
        rows = 0; // a table not copied yet
      }
    }
    return rows;
  }

  test("no commit runs a checkpoint (the writer's wal_autocheckpoint is 0); the checkpointer thread copies the WAL into the database file on its own", async () => {
    const readsPath = file('reads-ckpt');
    const eventsPath = file('events-ckpt');
    const reads = new SqliteReadStore(readsPath);
    await reads.ensureCollections([{ name: 'things', indexes: [] }]);
    await reads.commit([{ collection: 'things', id: 't1', doc: { id: 't1' } }, { collection: 'things', id: 't2', doc: { id: 't2' } }], { name: 'p', position: '0001' });
    const events = new SqliteEventStore(eventsPath);
    await events.append('thing-1', [ev('a'), ev('b'), ev('c')], 'no_stream');
    expect(await reads.writerPragma('wal_autocheckpoint')).toBe(0);
    expect(await events.writerPragma('wal_autocheckpoint')).toBe(0);
    // Far fewer pages than an auto-checkpoint's 1,000: only the checkpointer thread puts them in the file.
    expect(await inDatabaseFile(readsPath, 'SELECT count(*) AS n FROM rm_things', 2)).toBe(2);
    expect(await inDatabaseFile(eventsPath, 'SELECT count(*) AS n FROM events', 3)).toBe(3);
    await reads.close();
    await events.close();
  });
});

describe('the service on the embedded stores', () => {
  test.each([
    ['the projection pipeline in its own thread (the default)', {}, 'thread'],
    ['the projection pipeline on the event loop, committing in the read store writer thread (PROJECTIONS_THREAD=inline)', { PROJECTIONS_THREAD: 'inline' }, 'writer'],
  ] as const)('commits in threads with %s, and a request reads its own writes (the projection batch committed before it answers)', async (_, env, readModels) => {
    const { startTestApp } = await import('../support/test-app.js');
    const { EVENT_STORE, READ_STORE } = await import('#platform/tokens.js');
    const { ProjectionEngine } = await import('#projection-runtime/projection-engine.js');
    const { PipelineThread } = await import('#projection-runtime/pipeline-thread.js');
    const t = await startTestApp({ embedded: true, env });
    try {
      const api = t.as((await t.account()).test_key);
      const created = await api.post('/v1/customers', { email: 'ryw@example.com', name: 'Read Your Writes' });
      expect(created.status).toBe(200);
      const read = await api.get(`/v1/customers/${created.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: created.body.id, email: 'ryw@example.com' });
      expect(workerOf(storedEventStore(t.app.get(EVENT_STORE)))).not.toBeNull();
      const pipeline = t.app.get(ProjectionEngine).pipeline;
      if (readModels === 'thread') expect(pipeline).toBeInstanceOf(PipelineThread);
      else {
        expect(pipeline).not.toBeInstanceOf(PipelineThread);
        expect(workerOf(t.app.get(READ_STORE))).not.toBeNull();
      }
      expect((await t.http().get('/health')).body.status).toBe('ok');
    } finally {
      await t.close();
    }
  });
});

describe('a process that only writes and closes', () => {
  test('does not end before close() finished (the writer thread is held until it has exited)', async () => {
    const { spawnSync } = await import('node:child_process');
    const { pathToFileURL } = await import('node:url');
    const root = process.cwd();
    const storeUrl = pathToFileURL(join(root, 'libs/event-store/src/sqlite-event-store.js')).href;
    const readsUrl = pathToFileURL(join(root, 'libs/read-store/src/sqlite-read-store.js')).href;
    const path = file('script');
    const code = `
      const { SqliteEventStore } = await import(${JSON.stringify(storeUrl)});
      const { SqliteReadStore } = await import(${JSON.stringify(readsUrl)});
      const store = new SqliteEventStore(${JSON.stringify(path)});
      for (let i = 0; i < 3; i++) await store.append('thing-' + i, [{ id: crypto.randomUUID(), type: 't', data: {}, metadata: {} }], 'no_stream');
      await store.close();
      const reads = new SqliteReadStore(${JSON.stringify(`${path}-reads`)});
      await reads.commit([], { name: 'p', position: '1' });
      await reads.close();
      console.log('closed');
    `;
    const run = spawnSync(process.execPath, ['--no-warnings', '--import', pathToFileURL(join(root, 'test/support/register-ts.mjs')).href, '--input-type=module', '-e', code], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stdout: run.stdout.trim(), stderr: run.stderr.trim() }).toEqual({ status: 0, stdout: 'closed', stderr: '' });
  });
});
