import { randomUUID } from 'node:crypto';
import type { ReadStore } from '../../libs/read-store/src/read-store.port.js';

/** The behaviour every read-model store adapter must have. */
export function readStoreContract(makeStore: () => Promise<ReadStore>): void {
  let store: ReadStore;
  const run = randomUUID().replace(/-/g, '').slice(0, 8);
  let n = 0;
  const collection = () => `contract_${run}_${++n}`;

  beforeAll(async () => {
    store = await makeStore();
  });
  afterAll(async () => {
    await store.close();
  });

  async function seeded() {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['acct', 'created'] }, { fields: ['email'] }] }]);
    const docs = [
      { id: 'a', acct: 'x', created: 3, email: 'a@x', live: true, tag: null, nested: { k: 'v' } },
      { id: 'b', acct: 'x', created: 1, email: 'b@x', live: false, tag: 't' },
      { id: 'c', acct: 'x', created: 3, email: 'c@x', live: true, tag: 't' },
      { id: 'd', acct: 'y', created: 2, email: 'd@y', live: true, tag: null },
      { id: 'e', acct: 'x', created: 5, email: 'e@x', live: false, tag: 'u' },
    ];
    await store.commit(docs.map((doc) => ({ collection: c, id: doc.id, doc })));
    return c;
  }

  test('stores, gets, replaces and deletes documents', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [] }]);
    await store.ensureCollections([{ name: c, indexes: [] }]);
    expect(await store.get(c, 'nope')).toBeNull();
    await store.commit([{ collection: c, id: 'one', doc: { id: 'one', amount: '10.00', list: [1, { a: 'b' }] } }]);
    expect(await store.get(c, 'one')).toEqual({ id: 'one', amount: '10.00', list: [1, { a: 'b' }] });
    await store.commit([{ collection: c, id: 'one', doc: { id: 'one', amount: '12.00' } }]);
    expect(await store.get(c, 'one')).toEqual({ id: 'one', amount: '12.00' });
    const many = await store.getMany(c, ['one', 'missing']);
    expect([...many.keys()]).toEqual(['one']);
    await store.commit([{ collection: c, id: 'one', doc: null }]);
    expect(await store.get(c, 'one')).toBeNull();
  });

  test('filters by equality, booleans, null and any-of', async () => {
    const c = await seeded();
    const ids = async (where: Record<string, any>) =>
      (await store.find<{ id: string }>(c, { where, orderBy: { field: 'id', direction: 'asc' }, limit: 10 })).map((d) => d.id);
    expect(await ids({ acct: 'x' })).toEqual(['a', 'b', 'c', 'e']);
    expect(await ids({ acct: 'x', live: true })).toEqual(['a', 'c']);
    expect(await ids({ live: false })).toEqual(['b', 'e']);
    expect(await ids({ tag: null })).toEqual(['a', 'd']);
    expect(await ids({ email: ['b@x', 'd@y'] })).toEqual(['b', 'd']);
    expect(await ids({ email: [] })).toEqual([]);
  });

  test('sorts with id as tie-breaker and pages with a keyset cursor', async () => {
    const c = await seeded();
    const page = async (direction: 'asc' | 'desc', after?: { value: number; id: string }) =>
      (await store.find<{ id: string }>(c, { where: { acct: 'x' }, orderBy: { field: 'created', direction }, after, limit: 2 })).map(
        (d) => d.id,
      );
    expect(await page('desc')).toEqual(['e', 'c']);
    expect(await page('desc', { value: 3, id: 'c' })).toEqual(['a', 'b']);
    expect(await page('desc', { value: 1, id: 'b' })).toEqual([]);
    expect(await page('asc')).toEqual(['b', 'a']);
    expect(await page('asc', { value: 3, id: 'a' })).toEqual(['c', 'e']);
  });

  test('checkpoints start empty, commit with documents and never move backwards', async () => {
    const c = collection();
    const name = `proj_${run}_${n}`;
    await store.ensureCollections([{ name: c, indexes: [] }]);
    expect(await store.getCheckpoint(name)).toBeNull();
    await store.commit([{ collection: c, id: 'a', doc: { id: 'a' } }], { name, position: '00000000000000000005/00000000000000000005' });
    expect(await store.getCheckpoint(name)).toBe('00000000000000000005/00000000000000000005');
    await store.commit([], { name, position: '00000000000000000003/00000000000000000003' });
    expect(await store.getCheckpoint(name)).toBe('00000000000000000005/00000000000000000005');
    await store.commit([], { name, position: '00000000000000000009/00000000000000000009' });
    expect(await store.getCheckpoint(name)).toBe('00000000000000000009/00000000000000000009');
  });

  test('reset drops the documents and the checkpoint', async () => {
    const c = await seeded();
    const name = `proj_${run}_${n}`;
    await store.commit([], { name, position: '00000000000000000001/00000000000000000001' });
    await store.reset([c], name);
    expect(await store.get(c, 'a')).toBeNull();
    expect(await store.getCheckpoint(name)).toBeNull();
  });
}
