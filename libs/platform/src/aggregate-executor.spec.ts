import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '#event-store/sqlite-event-store.js';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { FixedClock } from '#shared/clock.js';
import type { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError } from '#shared/errors.js';
import { AggregateExecutor, SNAPSHOT_EVERY, SNAPSHOTS } from './aggregate-executor.js';
import type { CommandContext } from './command-context.js';

type Cmd = { type: 'add'; n: number } | { type: 'close' } | { type: 'reopen' };
type Ev = DomainEvent<'added', { n: number }> | DomainEvent<'closed', object> | DomainEvent<'reopened', object>;
interface State {
  total: number;
  closed: boolean;
  adds: number[];
}

const tally: Decider<Cmd, State, Ev> = {
  initialState: { total: 0, closed: false, adds: [] },
  decide(c, s) {
    if (c.type === 'add') {
      if (s.closed) throw new DomainError('invalid_state', 'closed', null, 409);
      return [{ type: 'added', data: { n: c.n } }];
    }
    if (c.type === 'close') return s.closed ? [] : [{ type: 'closed', data: {} }];
    return s.closed ? [{ type: 'reopened', data: {} }] : [];
  },
  evolve(s, e) {
    if (e.type === 'added') return { ...s, total: s.total + e.data.n, adds: [...s.adds, e.data.n] };
    if (e.type === 'closed') return { ...s, closed: true };
    return { ...s, closed: false };
  },
};

function setup() {
  const events = new SqliteEventStore(':memory:');
  const reads = new SqliteReadStore(':memory:');
  const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
  /** Two processes sharing the stores, each with its own memory. */
  const one = new AggregateExecutor(events, clock, reads);
  const two = new AggregateExecutor(events, clock, reads);
  const readStream = jest.spyOn(events, 'readStream');
  return { events, reads, one, two, readStream };
}

const run = (x: AggregateExecutor, c: Cmd) => x.execute(tally, 'tally-1', () => c, null);

describe('aggregate executor', () => {
  test('a command on a stream this process just wrote does not read it again', async () => {
    const { one, readStream } = setup();
    await run(one, { type: 'add', n: 1 });
    readStream.mockClear();
    for (let i = 0; i < 5; i++) await run(one, { type: 'add', n: 1 });
    expect(readStream).not.toHaveBeenCalled();
    expect((await one.load(tally, 'tally-1')).state.total).toBe(6);
  });

  test('two processes writing one stream: the stale memory conflicts, is evicted and re-read, nothing is lost', async () => {
    const { events, one, two, readStream } = setup();
    await run(one, { type: 'add', n: 1 });
    await run(two, { type: 'add', n: 10 }); // reads the stream: one's event is there
    readStream.mockClear();
    const append = jest.spyOn(events, 'append');
    const result = await run(one, { type: 'add', n: 100 }); // one still remembers revision 0
    expect(append).toHaveBeenCalledTimes(2); // refused with the stale revision, then appended after the re-read
    expect(readStream).toHaveBeenCalledTimes(1);
    expect(result.state).toEqual({ total: 111, closed: false, adds: [1, 10, 100] });
    expect((await events.readStream('tally-1')).map((e) => e.data.n)).toEqual([1, 10, 100]);
    // The memory now holds the new revision: the next command appends at once.
    append.mockClear();
    await run(one, { type: 'add', n: 1000 });
    expect(append).toHaveBeenCalledTimes(1);
  });

  test('a refusal or an empty decision on a remembered state is checked against the stream first', async () => {
    const { one, two } = setup();
    await run(one, { type: 'add', n: 1 });
    await run(one, { type: 'close' });
    await run(two, { type: 'reopen' }); // one does not know
    expect((await run(one, { type: 'add', n: 2 })).state.total).toBe(3);
    await run(two, { type: 'close' });
    expect((await run(one, { type: 'close' })).events).toEqual([]); // already closed, as the stream says
    await expect(run(one, { type: 'add', n: 5 })).rejects.toMatchObject({ code: 'invalid_state' });
  });

  test('a long stream is read from its latest snapshot: a fresh process folds at most SNAPSHOT_EVERY events', async () => {
    const { events, reads, one, readStream } = setup();
    for (let i = 1; i <= 120; i++) await run(one, { type: 'add', n: i });
    await new Promise((r) => setTimeout(r, 10)); // snapshots are written in the background
    const snapshot = await reads.get<{ revision: number }>(SNAPSHOTS, 'tally-1');
    expect(snapshot?.revision).toBeGreaterThanOrEqual(119 - SNAPSHOT_EVERY);

    const fresh = new AggregateExecutor(events, new FixedClock(new Date('2026-01-01T00:00:00.000Z')), reads);
    readStream.mockClear();
    const loaded = await fresh.load(tally, 'tally-1');
    const tail = (await readStream.mock.results[0].value) as unknown[];
    expect(tail.length).toBeLessThanOrEqual(SNAPSHOT_EVERY);
    // The same state as folding every event from the first.
    const full = (await events.readStream('tally-1')).reduce((s, e) => tally.evolve(s, e as unknown as Ev), tally.initialState);
    expect(loaded.state).toEqual(full);
    expect(loaded.revision).toBe(119);
    expect((await run(fresh, { type: 'add', n: 1 })).state.total).toBe(full.total + 1);
  });

  test('a snapshot taken by other code (another version of the decider) is ignored', async () => {
    const { events, reads, one } = setup();
    for (let i = 1; i <= 40; i++) await run(one, { type: 'add', n: 1 });
    await new Promise((r) => setTimeout(r, 10));
    const changed: Decider<Cmd, State, Ev> = { ...tally, evolve: (s, e) => (e.type === 'added' ? { ...s, total: s.total + 2 * e.data.n } : tally.evolve(s, e)) };
    const fresh = new AggregateExecutor(events, new FixedClock(new Date()), reads);
    expect((await fresh.load(changed, 'tally-1')).state.total).toBe(80);
  });

  test('newStream: a just-minted stream is not read; a wrong hint costs a conflict and a read, nothing else', async () => {
    const { events, one } = setup();
    const readStream = jest.spyOn(events, 'readStream');
    await one.execute(tally, 'tally-n', () => ({ type: 'add' as const, n: 1 }), null, { newStream: true });
    expect(readStream).not.toHaveBeenCalled();
    const other = new AggregateExecutor(events, new FixedClock(new Date()));
    const wrong = await other.execute(tally, 'tally-n', () => ({ type: 'add' as const, n: 2 }), null, { newStream: true });
    expect(wrong.state.total).toBe(3);
    expect((await events.readStream('tally-n')).map((e) => e.revision)).toEqual([0, 1]);
  });

  describe('watching for foreign writes (the projection pipeline shows what other processes wrote)', () => {
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    };

    /** Two processes on one file, each with its own event store handle, executor and pipeline. */
    async function twoProcesses() {
      const { mkdtempSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const { ProjectionPipeline } = await import('#projection-runtime/projection-pipeline.js');
      const dir = mkdtempSync(join(tmpdir(), 'executor-watch-'));
      const clock = new FixedClock(new Date('2026-01-01T00:00:00.000Z'));
      const make = (name: string) => {
        const events = new SqliteEventStore(join(dir, 'events.sqlite'));
        const reads = new SqliteReadStore(join(dir, `reads-${name}.sqlite`));
        const executor = new AggregateExecutor(events, clock, reads);
        // No projection needs to exist for the watch: one that counts is enough.
        const pipeline = new ProjectionPipeline([{ name: `none-${name}`, collection: 'none', collections: [], documentIds: () => [], project: () => null }], events, reads, { pollMs: 5 });
        return { events, reads, executor, pipeline };
      };
      return { one: make('one'), two: make('two') };
    }

    test('a remembered state is used without reading the tail; another process writing the stream evicts it once the pipeline reads its event', async () => {
      const { one, two } = await twoProcesses();
      await one.pipeline.init();
      one.executor.watchForeignWrites(one.pipeline);
      try {
        // Appended (and remembered) before the pipeline follows: a pipeline that read the event before
        // the append's answer came back would count it as another process's write (a spurious eviction,
        // harmless, which a loaded machine makes likely), and this test is about the ones that are not.
        await run(one.executor, { type: 'add', n: 1 });
        one.pipeline.start();
        // Its own write seen by the pipeline evicts nothing.
        expect(await one.pipeline.waitFor((await one.events.headPosition())!, 5000)).toBe(true);
        expect(one.executor.foreignEvictions).toBe(0);
        const readStream = jest.spyOn(one.events, 'readStream');
        expect((await one.executor.load(tally, 'tally-1')).state.total).toBe(1);
        expect(readStream).not.toHaveBeenCalled(); // memory, no tail read

        await run(two.executor, { type: 'add', n: 10 }); // the other process
        // Until the pipeline reads it, the memory is what this process knew (an append would be refused).
        await until(() => one.executor.foreignEvictions > 0);
        expect(one.executor.foreignEvictions).toBe(1);
        expect((await one.executor.load(tally, 'tally-1')).state.total).toBe(11); // re-read
        expect(readStream).toHaveBeenCalled();
        // An empty decision on the re-read state is right: closing twice says nothing the second time.
        await run(two.executor, { type: 'close' });
        await until(() => one.executor.foreignEvictions > 1);
        expect((await run(one.executor, { type: 'close' })).events).toEqual([]);
      } finally {
        await one.pipeline.stop();
        for (const p of [one, two]) {
          await p.events.close();
          await p.reads.close();
        }
      }
    });

    test('a stopped pipeline watches nothing: the tail is read again on every load', async () => {
      const { one, two } = await twoProcesses();
      await one.pipeline.init();
      one.executor.watchForeignWrites(one.pipeline); // never started
      try {
        await run(one.executor, { type: 'add', n: 1 });
        await run(two.executor, { type: 'add', n: 10 });
        const readStream = jest.spyOn(one.events, 'readStream');
        expect((await one.executor.load(tally, 'tally-1')).state.total).toBe(11);
        expect(readStream).toHaveBeenCalledTimes(1);
      } finally {
        for (const p of [one, two]) {
          await p.events.close();
          await p.reads.close();
        }
      }
    });
  });

  describe('unit of work', () => {
    const ctx: CommandContext = { accountId: 'acct_1', mode: 'test', requestId: null, idempotencyKey: null };
    const on = (x: AggregateExecutor, stream: string, c: Cmd) => x.execute(tally, stream, () => c, ctx);

    test('commands on new streams are appended together, in decision order, in one multi-stream append', async () => {
      const { events, one } = setup();
      const appendMany = jest.spyOn(events, 'appendMany');
      const append = jest.spyOn(events, 'append');
      const { result, position } = await one.unitOfWork(ctx, async () => {
        const a = await on(one, 'tally-a', { type: 'add', n: 1 });
        expect(a.position).toBeNull(); // staged, not yet written
        expect(await events.readStream('tally-a')).toEqual([]);
        await on(one, 'tally-b', { type: 'add', n: 2 });
        await on(one, 'tally-a', { type: 'add', n: 3 }); // decided on the staged state
        return (await one.load(tally, 'tally-a')).state.total;
      });
      expect(result).toBe(4);
      expect(append).not.toHaveBeenCalled();
      expect(appendMany).toHaveBeenCalledTimes(1);
      const all = await events.readAll({ maxCount: 100 });
      expect(all.map((e) => [e.streamId, e.revision, e.data.n])).toEqual([['tally-a', 0, 1], ['tally-b', 0, 2], ['tally-a', 1, 3]]);
      expect(position).toBe(all[2].position);
      // Remembered with the stored revision: the next command appends without reading.
      expect((await on(one, 'tally-a', { type: 'add', n: 1 })).state.total).toBe(5);
    });

    test('a command on a stream that exists first appends what was staged before it (the event order holds)', async () => {
      const { events, one } = setup();
      await on(one, 'tally-old', { type: 'add', n: 100 });
      await one.unitOfWork(ctx, async () => {
        await on(one, 'tally-new', { type: 'add', n: 1 });
        await on(one, 'tally-old', { type: 'add', n: 2 });
        await on(one, 'tally-new', { type: 'add', n: 3 });
      });
      const all = await events.readAll({ maxCount: 100 });
      expect(all.map((e) => [e.streamId, e.data.n])).toEqual([['tally-old', 100], ['tally-new', 1], ['tally-old', 2], ['tally-new', 3]]);
    });

    test('flush() writes what is staged at once (before a gateway call); the unit goes on after it', async () => {
      const { events, one } = setup();
      await one.unitOfWork(ctx, async () => {
        await on(one, 'tally-x', { type: 'add', n: 1 });
        const position = await one.flush(ctx);
        expect((await events.readStream('tally-x')).map((e) => e.position)).toEqual([position]);
        await on(one, 'tally-y', { type: 'add', n: 2 });
      });
      expect((await events.readStream('tally-y')).length).toBe(1);
    });

    test('commands with another context are not part of the unit; one on a staged stream has the unit written first', async () => {
      const { events, one } = setup();
      await one.unitOfWork(ctx, async () => {
        await on(one, 'tally-z', { type: 'add', n: 1 });
        const outside = await one.execute(tally, 'tally-w', () => ({ type: 'add' as const, n: 7 }), { ...ctx });
        expect(outside.position).not.toBeNull(); // appended at once
        await one.execute(tally, 'tally-z', () => ({ type: 'add' as const, n: 2 }), null);
        expect((await events.readStream('tally-z')).map((e) => e.data.n)).toEqual([1, 2]);
      });
    });

    test('a refused command inside the unit: what was decided before it is still appended, the error is thrown', async () => {
      const { events, one } = setup();
      const work = one.unitOfWork(ctx, async () => {
        await on(one, 'tally-c', { type: 'close' });
        await on(one, 'tally-c', { type: 'add', n: 1 }); // closed: refused on the staged state
      });
      await expect(work).rejects.toThrow('closed');
      expect((await events.readStream('tally-c')).map((e) => e.type)).toEqual(['closed']);
    });

    test('another writer created a staged stream meanwhile: 409, and none of the unit is written (SQLite)', async () => {
      const { events, one } = setup();
      const next = one.unitOfWork(ctx, async () => {
        await on(one, 'tally-r', { type: 'add', n: 1 });
        await on(one, 'tally-s', { type: 'add', n: 2 });
        await events.append('tally-s', [{ id: randomUUID(), type: 'added', data: { n: 9 }, metadata: { occurred_at: 'x' } }], 'no_stream');
      });
      await expect(next).rejects.toMatchObject({ status: 409 });
      expect(await events.readStream('tally-r')).toEqual([]);
      expect((await events.readStream('tally-s')).map((e) => e.data.n)).toEqual([9]);
      // The memory of the conflicting streams is dropped: a command reads the store again.
      expect((await on(one, 'tally-s', { type: 'add', n: 1 })).state.total).toBe(10);
    });

    test('oneCommit: commands on streams that exist and on new ones are one append, in decision order, with their expected revisions', async () => {
      const { events, one } = setup();
      await on(one, 'tally-p', { type: 'add', n: 100 });
      const appendMany = jest.spyOn(events, 'appendMany');
      const append = jest.spyOn(events, 'append');
      const { position } = await one.oneCommit(ctx, async () => {
        await on(one, 'tally-p', { type: 'add', n: 1 });
        await on(one, 'tally-q', { type: 'add', n: 2 });
        expect(await events.readStream('tally-q')).toEqual([]); // staged
        await on(one, 'tally-p', { type: 'add', n: 3 }); // on the staged state
      });
      expect(append).not.toHaveBeenCalled();
      expect(appendMany).toHaveBeenCalledTimes(1);
      expect(appendMany.mock.calls[0][0].map((p) => [p.streamId, p.expected])).toEqual([['tally-p', 0], ['tally-q', 'no_stream'], ['tally-p', 1]]);
      const all = await events.readAll({ maxCount: 100 });
      expect(all.map((e) => [e.streamId, e.revision, e.data.n])).toEqual([['tally-p', 0, 100], ['tally-p', 1, 1], ['tally-q', 0, 2], ['tally-p', 2, 3]]);
      expect(position).toBe(all[3].position);
    });

    test('oneCommit inside a unit of work: the unit\'s staged commands are written first; flush() inside it writes the section so far', async () => {
      const { events, one } = setup();
      await on(one, 'tally-e', { type: 'add', n: 1 });
      await one.unitOfWork(ctx, async () => {
        await on(one, 'tally-f', { type: 'add', n: 2 }); // staged by the unit
        await one.oneCommit(ctx, async () => {
          expect((await events.readStream('tally-f')).length).toBe(1);
          await on(one, 'tally-e', { type: 'add', n: 3 });
          await one.flush(ctx); // before anything leaves the process
          expect((await events.readStream('tally-e')).length).toBe(2);
          await on(one, 'tally-e', { type: 'add', n: 4 });
        });
        await on(one, 'tally-g', { type: 'add', n: 5 }); // the unit goes on
      });
      const all = await events.readAll({ maxCount: 100 });
      expect(all.map((e) => [e.streamId, e.data.n])).toEqual([['tally-e', 1], ['tally-f', 2], ['tally-e', 3], ['tally-e', 4], ['tally-g', 5]]);
    });

    test('oneCommit meets a concurrent write: nothing of it is written, then each command is decided again on the current state, in order', async () => {
      const { events, one } = setup();
      await on(one, 'tally-k', { type: 'add', n: 10 });
      await on(one, 'tally-l', { type: 'add', n: 20 });
      // Another process (another executor on the same store) writes tally-l while the section is open.
      const other = new AggregateExecutor(events, new FixedClock(new Date()));
      const { position } = await one.oneCommit(ctx, async () => {
        await on(one, 'tally-k', { type: 'add', n: 1 });
        await on(one, 'tally-m', { type: 'add', n: 2 });
        await on(one, 'tally-l', { type: 'add', n: 3 });
        await other.execute(tally, 'tally-l', () => ({ type: 'add' as const, n: 7 }), null);
      });
      const all = await events.readAll({ maxCount: 100 });
      expect(all.map((e) => [e.streamId, e.revision, e.data.n])).toEqual([
        ['tally-k', 0, 10], ['tally-l', 0, 20], ['tally-l', 1, 7], ['tally-k', 1, 1], ['tally-m', 0, 2], ['tally-l', 2, 3],
      ]);
      expect(position).toBe(all[5].position);
      expect((await one.load(tally, 'tally-l')).state.total).toBe(30);
    });

    test('oneCommit: a refusal inside it keeps what was decided before it (written), the error is thrown', async () => {
      const { events, one } = setup();
      await on(one, 'tally-h', { type: 'add', n: 1 });
      const work = one.oneCommit(ctx, async () => {
        await on(one, 'tally-h', { type: 'add', n: 2 });
        await on(one, 'tally-h', { type: 'close' });
        await on(one, 'tally-h', { type: 'add', n: 3 }); // refused on the staged state
      });
      await expect(work).rejects.toThrow('closed');
      expect((await events.readStream('tally-h')).map((e) => e.type)).toEqual(['added', 'added', 'closed']);
    });
  });
});
