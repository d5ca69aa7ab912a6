import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from './sqlite-event-store.js';
import type { EventMetadata, RecordedEvent } from './event-store.port.js';
import { EventVersionError, EventVersions, SCHEMA_VERSION, storedVersion, type Upcaster, UpcastingEventStore } from './upcasting.js';

const meta: EventMetadata = { occurred_at: '2026-11-23T10:00:00.000Z' };
const recorded = (type: string, data: Record<string, unknown>, metadata: EventMetadata = meta): RecordedEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata,
  streamId: 'thing-1',
  revision: 0,
  position: '1',
});

// thing.made: v1 { n } → v2 { count } → v3 { count, unit } (the steps given out of order on purpose).
const steps: Upcaster[] = [
  { type: 'thing.made', from: 2, to: 3, up: (d) => ({ ...d, unit: 'each', seen: [...((d.seen as string[]) ?? []), '2→3'] }) },
  { type: 'thing.made', from: 1, to: 2, up: ({ n, ...d }) => ({ ...d, count: n, seen: ['1→2'] }) },
];

describe('EventVersions', () => {
  const versions = new EventVersions({ 'thing.made': 3 }, steps);

  test('applies the steps in order from the stored version to the current one', () => {
    const v1 = recorded('thing.made', { id: 't1', n: 4 });
    expect(versions.upcast(v1)).toMatchObject({ data: { id: 't1', count: 4, unit: 'each', seen: ['1→2', '2→3'] }, metadata: { [SCHEMA_VERSION]: 3 } });
    expect(versions.upcast(v1).data).not.toHaveProperty('n');
    const v2 = recorded('thing.made', { id: 't1', count: 4 }, { ...meta, [SCHEMA_VERSION]: 2 });
    expect(versions.upcast(v2).data).toEqual({ id: 't1', count: 4, unit: 'each', seen: ['2→3'] });
  });

  test('an event already current, or of a type without upcasters, is the same object', () => {
    const v3 = recorded('thing.made', { count: 1, unit: 'kg' }, { ...meta, [SCHEMA_VERSION]: 3 });
    expect(versions.upcast(v3)).toBe(v3);
    const other = recorded('other.happened', { n: 1 });
    expect(versions.upcast(other)).toBe(other);
    const list = [v3, other];
    expect(versions.upcastAll(list)).toBe(list);
  });

  test('never changes the stored event it read (upcasters get a copy)', () => {
    const v1 = recorded('thing.made', { n: 4, nested: { a: 1 } });
    versions.upcast(v1);
    expect(v1.data).toEqual({ n: 4, nested: { a: 1 } });
    expect(v1.metadata).toEqual(meta);
  });

  test('an event without a version reads as version 1', () => {
    expect(storedVersion(meta)).toBe(1);
    expect(storedVersion({ ...meta, [SCHEMA_VERSION]: 2 })).toBe(2);
  });

  test('an event newer than this release knows is refused, not misread', () => {
    expect(() => versions.upcast(recorded('thing.made', {}, { ...meta, [SCHEMA_VERSION]: 4 }))).toThrow(/stored as version 4, this release reads up to 3/);
  });

  test('new events are stamped with their type\'s current version (default 1); a stated one is kept', () => {
    expect(versions.stamp({ id: 'x', type: 'thing.made', data: {}, metadata: meta }).metadata[SCHEMA_VERSION]).toBe(3);
    expect(versions.stamp({ id: 'x', type: 'other.happened', data: {}, metadata: meta }).metadata[SCHEMA_VERSION]).toBe(1);
    expect(versions.stamp({ id: 'x', type: 'thing.made', data: {}, metadata: { ...meta, [SCHEMA_VERSION]: 1 } }).metadata[SCHEMA_VERSION]).toBe(1);
    expect(versions.currentVersion('unknown.type')).toBe(1);
  });

  test('a registry with a missing step is refused when built (start-up)', () => {
    expect(() => new EventVersions({ 'thing.made': 3 }, [steps[1]])).toThrow(new EventVersionError('thing.made: current version 3 but no upcaster 2→3'));
    expect(() => new EventVersions({ 'thing.made': 2 }, [])).toThrow(/no upcaster 1→2/);
  });

  test('steps that skip a version, go beyond the current one or repeat are refused', () => {
    expect(() => new EventVersions({ 'thing.made': 3 }, [{ ...steps[1], to: 3 }])).toThrow(/one version to the next/);
    expect(() => new EventVersions({}, [steps[1]])).toThrow(/beyond the current version 1/);
    expect(() => new EventVersions({ 'thing.made': 3 }, [...steps, steps[0]])).toThrow(/two upcasters 2→3/);
    expect(() => new EventVersions({ 'thing.made': 0 }, [])).toThrow(/integer ≥ 1/);
  });
});

describe('UpcastingEventStore', () => {
  const open: SqliteEventStore[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  test('stamps on append, keeps the stored shape in the adapter, reads the current shape (stream and log)', async () => {
    const inner = new SqliteEventStore(':memory:', { writer: 'inline' });
    open.push(inner);
    const store = new UpcastingEventStore(inner, new EventVersions({ 'thing.made': 3 }, steps));
    // As an older release wrote it: version 1, straight to the adapter.
    await inner.append('thing-1', [{ id: randomUUID(), type: 'thing.made', data: { n: 2 }, metadata: meta }], 'no_stream');
    // As this release writes it.
    await store.append('thing-1', [{ id: randomUUID(), type: 'thing.made', data: { count: 5, unit: 'kg' }, metadata: meta }], 0);
    await store.appendMany([{ streamId: 'other-1', events: [{ id: randomUUID(), type: 'other.happened', data: { n: 1 }, metadata: meta }], expected: 'no_stream' }]);

    const raw = await inner.readStream('thing-1');
    expect(raw.map((e) => [e.data, e.metadata[SCHEMA_VERSION]])).toEqual([
      [{ n: 2 }, undefined],
      [{ count: 5, unit: 'kg' }, 3],
    ]);
    const read = await store.readStream('thing-1');
    expect(read.map((e) => [e.data, e.metadata[SCHEMA_VERSION]])).toEqual([
      [{ count: 2, unit: 'each', seen: ['1→2', '2→3'] }, 3],
      [{ count: 5, unit: 'kg' }, 3],
    ]);
    const all = await store.readAll({ maxCount: 10 });
    expect(all.map((e) => e.data)).toEqual([{ count: 2, unit: 'each', seen: ['1→2', '2→3'] }, { count: 5, unit: 'kg' }, { n: 1 }]);
    expect(all[2].metadata[SCHEMA_VERSION]).toBe(1);
    // A reader's hint: a type it does not look at is left as read.
    const hinted = await store.readAll({ maxCount: 10, parseOnly: new Set(['other.happened']) });
    expect(hinted[0].metadata[SCHEMA_VERSION]).toBeUndefined();
  });
});
