import { randomUUID } from 'node:crypto';
import { type DocumentWrite, FencedError, LEASES_COLLECTION, type ReadStore, UniqueConstraintError, UnstorableDocumentError } from '#read-store/read-store.port.js';

export interface ReadStoreContractOptions {
  /**
   * Whether a commit is one transaction on this store (SQLite always; MongoDB on a replica set or
   * sharded cluster). A store without transactions promises less, and the cases say what: its
   * checkpoint never moves past a failed write, and redelivery repairs the rest.
   */
  atomicCommit?: (store: ReadStore) => Promise<boolean>;
}

const pos = (n: number) => `${String(n).padStart(20, '0')}/${String(n).padStart(20, '0')}`;

/**
 * The behaviour every read-model store adapter must have. `makeStore` opens a NEW adapter instance
 * on the SAME storage each time it is called (what a restarted process opens).
 */
export function readStoreContract(makeStore: () => Promise<ReadStore>, options: ReadStoreContractOptions = {}): void {
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

  test('swap: compare-and-set of one document (absent, expected fields, a mismatch refused)', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['holder'] }] }]);
    expect(await store.swap(c, 'unit', null, { id: 'unit', holder: 'w1', epoch: 1 })).toBe(true);
    // Only if absent: a second taker of the same unit is refused.
    expect(await store.swap(c, 'unit', null, { id: 'unit', holder: 'w2', epoch: 1 })).toBe(false);
    expect(await store.get(c, 'unit')).toEqual({ id: 'unit', holder: 'w1', epoch: 1 });
    // A stale expectation (another epoch, another holder) changes nothing.
    expect(await store.swap(c, 'unit', { holder: 'w1', epoch: 0 }, { id: 'unit', holder: 'w2', epoch: 1 })).toBe(false);
    expect(await store.swap(c, 'unit', { holder: 'w2', epoch: 1 }, { id: 'unit', holder: 'w2', epoch: 2 })).toBe(false);
    expect(await store.swap(c, 'missing', { holder: 'w1' }, { id: 'missing', holder: 'w1' })).toBe(false);
    expect(await store.get(c, 'missing')).toBeNull();
    // The expected fields as stored: replaced, and the indexed column follows the new document.
    expect(await store.swap(c, 'unit', { holder: 'w1', epoch: 1 }, { id: 'unit', holder: 'w2', epoch: 2, note: null })).toBe(true);
    expect(await store.get(c, 'unit')).toEqual({ id: 'unit', holder: 'w2', epoch: 2, note: null });
    expect((await store.find(c, { where: { holder: 'w2' }, orderBy: { field: 'id', direction: 'asc' }, limit: 5 })).map((d) => d.id)).toEqual(['unit']);
    // A missing field equals null.
    expect(await store.swap(c, 'unit', { holder: 'w2', gone: null, note: null }, { id: 'unit', holder: 'w3', epoch: 3 })).toBe(true);
    // Seen by another instance on the same storage (another process).
    const other = await makeStore();
    try {
      expect(await other.get(c, 'unit')).toEqual({ id: 'unit', holder: 'w3', epoch: 3 });
      expect(await other.swap(c, 'unit', { holder: 'w2', epoch: 2 }, { id: 'unit', holder: 'w9', epoch: 9 })).toBe(false);
    } finally {
      await other.close();
    }
  });

  test('swap: of many racing takers of one absent document, exactly one wins', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [] }]);
    const others = await Promise.all([makeStore(), makeStore()]);
    try {
      await Promise.all(others.map((o) => o.ensureCollections([{ name: c, indexes: [] }])));
      const stores = [store, ...others];
      const won = await Promise.all(Array.from({ length: 9 }, (_, i) => stores[i % 3].swap(c, 'unit', null, { id: 'unit', holder: `w${i}` })));
      expect(won.filter(Boolean)).toHaveLength(1);
      const holder = (await store.get<{ holder: string }>(c, 'unit'))!.holder;
      expect(holder).toBe(`w${won.indexOf(true)}`);
    } finally {
      for (const o of others) await o.close();
    }
  });

  test('a fenced commit lands while its lease is held at its epoch, and is refused whole once another epoch holds it', async () => {
    const c = collection();
    const unit = `unit_${run}_${n}`;
    await store.ensureCollections([{ name: c, indexes: [] }, { name: LEASES_COLLECTION, indexes: [] }]);
    expect(await store.swap(LEASES_COLLECTION, unit, null, { id: unit, holder: 'wrk_a', epoch: 1 })).toBe(true);
    const name = `fenced_${run}`;
    await store.commit([{ collection: c, id: 'x', doc: { id: 'x', v: 1 } }], { name, position: pos(1) }, { unit, holder: 'wrk_a', epoch: 1 });
    expect(await store.get(c, 'x')).toEqual({ id: 'x', v: 1 });
    expect(await store.getCheckpoint(name)).toBe(pos(1));
    // Another worker takes the lease (the next epoch): the former holder's writes are refused.
    expect(await store.swap(LEASES_COLLECTION, unit, { holder: 'wrk_a', epoch: 1 }, { id: unit, holder: 'wrk_b', epoch: 2 })).toBe(true);
    await expect(store.commit([{ collection: c, id: 'x', doc: { id: 'x', v: 2 } }], { name, position: pos(2) }, { unit, holder: 'wrk_a', epoch: 1 })).rejects.toBeInstanceOf(FencedError);
    await expect(store.commit([], { name, position: pos(3) }, { unit, holder: 'wrk_a', epoch: 1 })).rejects.toBeInstanceOf(FencedError);
    expect(await store.get(c, 'x')).toEqual({ id: 'x', v: 1 });
    expect(await store.getCheckpoint(name)).toBe(pos(1));
    // The new holder's land; a fence on a lease nobody holds is refused too.
    await store.commit([{ collection: c, id: 'x', doc: { id: 'x', v: 3 } }], { name, position: pos(4) }, { unit, holder: 'wrk_b', epoch: 2 });
    expect(await store.get(c, 'x')).toEqual({ id: 'x', v: 3 });
    await expect(store.commit([{ collection: c, id: 'y', doc: { id: 'y' } }], undefined, { unit: `${unit}_none`, holder: 'wrk_b', epoch: 1 })).rejects.toBeInstanceOf(FencedError);
    expect(await store.get(c, 'y')).toBeNull();
  });

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

  test('one commit over several collections applies each collection\'s writes in their order (write, delete, write again)', async () => {
    const [a, b] = [collection(), collection()];
    await store.ensureCollections([
      { name: a, indexes: [{ fields: ['tag'] }] },
      { name: b, indexes: [] },
    ]);
    await store.commit([
      { collection: a, id: 'x', doc: { id: 'x', tag: 'first' } },
      { collection: b, id: 'x', doc: { id: 'x', n: 1 } },
      { collection: a, id: 'y', doc: { id: 'y', tag: 'kept' } },
      { collection: a, id: 'x', doc: null },
      { collection: b, id: 'x', doc: null },
      { collection: a, id: 'x', doc: { id: 'x', tag: 'last' } },
      { collection: b, id: 'z', doc: { id: 'z', n: 2 } },
    ]);
    expect(await store.get(a, 'x')).toEqual({ id: 'x', tag: 'last' });
    expect(await store.get(b, 'x')).toBeNull();
    expect(await store.find(a, { where: { tag: 'last' }, orderBy: { field: 'id', direction: 'asc' }, limit: 10 })).toEqual([{ id: 'x', tag: 'last' }]);
    expect(await store.find(a, { where: { tag: 'first' }, orderBy: { field: 'id', direction: 'asc' }, limit: 10 })).toEqual([]);
    expect(await store.find(b, { orderBy: { field: 'id', direction: 'asc' }, limit: 10 })).toEqual([{ id: 'z', n: 2 }]);
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

  test('a prefix range matches the strings starting with it, with equalities, on id, ordered and paged', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['acct', 'term'] }] }]);
    const docs = [
      { id: 't1', acct: 'x', term: 'ana' },
      { id: 't2', acct: 'x', term: 'anabel' },
      { id: 't3', acct: 'x', term: 'andres' },
      { id: 't4', acct: 'x', term: 'an' },
      { id: 't5', acct: 'y', term: 'ana' },
      { id: 't6', acct: 'x', term: 'b' },
      { id: 't7', acct: 'x', term: 42 },
      { id: 't8', acct: 'x', term: null },
      { id: 't9', acct: 'x', term: 'ANA' },
      { id: 'u1', acct: 'x', term: 'anaé' },
    ];
    await store.commit(docs.map((doc) => ({ collection: c, id: doc.id, doc })));
    const ids = async (prefix: { field: string; value: string }, where: Record<string, any> = { acct: 'x' }, after?: { value: string; id: string }, limit = 10) =>
      (await store.find<{ id: string }>(c, { where, prefix, orderBy: { field: 'term', direction: 'asc' }, after, limit })).map((d) => d.id);
    expect(await ids({ field: 'term', value: 'ana' })).toEqual(['t1', 't2', 'u1']);
    expect(await ids({ field: 'term', value: 'an' })).toEqual(['t4', 't1', 't2', 'u1', 't3']);
    expect(await ids({ field: 'term', value: 'ana' }, {})).toEqual(['t1', 't5', 't2', 'u1']);
    expect(await ids({ field: 'term', value: 'anabelle' })).toEqual([]);
    expect(await ids({ field: 'term', value: '' })).toEqual(['t9', 't4', 't1', 't2', 'u1', 't3', 't6']);
    expect(await ids({ field: 'term', value: 'an' }, { acct: 'x' }, { value: 'ana', id: 't1' }, 2)).toEqual(['t2', 'u1']);
    const byId = async (value: string) =>
      (await store.find<{ id: string }>(c, { where: { acct: 'x' }, prefix: { field: 'id', value }, orderBy: { field: 'id', direction: 'asc' }, limit: 10 })).map((d) => d.id);
    expect(await byId('t')).toEqual(['t1', 't2', 't3', 't4', 't6', 't7', 't8', 't9']);
    expect(await byId('u')).toEqual(['u1']);
    expect(await byId('t5')).toEqual([]);
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

  test('a unique index refuses a second document with the same key; null and missing keys never collide', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['email'], unique: true }] }]);
    await store.commit([
      { collection: c, id: 'a', doc: { id: 'a', email: 'x@example.com' } },
      { collection: c, id: 'b', doc: { id: 'b', email: 'y@example.com' } },
    ]);
    await expect(store.commit([{ collection: c, id: 'c', doc: { id: 'c', email: 'x@example.com' } }])).rejects.toBeInstanceOf(UniqueConstraintError);
    // The same through a positioned write (a projection's own document).
    await expect(store.commit([{ collection: c, id: 'c', doc: { id: 'c', email: 'y@example.com' }, position: pos(1) }])).rejects.toBeInstanceOf(
      UniqueConstraintError,
    );
    expect(await store.get(c, 'c')).toBeNull();
    // A document keeps its own key when it is rewritten; a key given up is free again.
    await store.commit([{ collection: c, id: 'a', doc: { id: 'a', email: 'x@example.com', name: 'A' } }]);
    await store.commit([{ collection: c, id: 'a', doc: { id: 'a', email: 'z@example.com' } }]);
    await store.commit([{ collection: c, id: 'c', doc: { id: 'c', email: 'x@example.com' } }]);
    expect(await store.get(c, 'c')).toEqual({ id: 'c', email: 'x@example.com' });
    // Null and missing are no key: any number of documents may have them.
    await store.commit([
      { collection: c, id: 'n1', doc: { id: 'n1', email: null } },
      { collection: c, id: 'n2', doc: { id: 'n2' } },
      { collection: c, id: 'n3', doc: { id: 'n3', email: null } },
    ]);
    expect([...(await store.getMany(c, ['n1', 'n2', 'n3'])).keys()].sort()).toEqual(['n1', 'n2', 'n3']);
  });

  test('a positioned write never replaces a document stamped at a later position (a lagging writer cannot put an older version back)', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['status'] }] }]);
    const version = (status: string, at: number) => ({ collection: c, id: 's1', doc: { id: 's1', status, _position: pos(at) }, position: pos(at) });
    await store.commit([version('active', 7)]);
    // Another process's pipeline, behind this one, writes what it had at an earlier event: not applied.
    await store.commit([version('incomplete', 5)]);
    expect(await store.get(c, 's1')).toEqual({ id: 's1', status: 'active', _position: pos(7) });
    expect((await store.find(c, { where: { status: 'incomplete' }, orderBy: { field: 'status', direction: 'asc' }, limit: 10 })).map((d) => d.id)).toEqual([]);
    // The same position again (redelivery) and a later one land.
    await store.commit([version('active', 7)]);
    await store.commit([version('past_due', 9)]);
    expect(await store.get(c, 's1')).toEqual({ id: 's1', status: 'past_due', _position: pos(9) });
    // An unstamped document (a derived entry) is written as given.
    await store.commit([{ collection: c, id: 'e1', doc: { id: 'e1', status: 'x' } }]);
    await store.commit([{ collection: c, id: 'e1', doc: { id: 'e1', status: 'y' } }]);
    expect(await store.get(c, 'e1')).toEqual({ id: 'e1', status: 'y' });
  });

  test('a positioned delete is not undone by an older write, nor applied over a later version (a lagging writer cannot bring a deleted document back)', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['status'] }] }]);
    const version = (id: string, status: string, at: number) => ({ collection: c, id, doc: { id, status, _position: pos(at) }, position: pos(at) });
    const removed = (id: string, at: number) => ({ collection: c, id, doc: null, position: pos(at) });
    await store.commit([version('i1', 'active', 5)]);
    await store.commit([removed('i1', 7)]);
    expect(await store.get(c, 'i1')).toBeNull();
    // Another process's pipeline, behind this one, writes the item as it stood at 6: it stays deleted.
    await store.commit([version('i1', 'active', 6)]);
    expect(await store.get(c, 'i1')).toBeNull();
    expect(await store.getMany(c, ['i1'])).toEqual(new Map());
    expect(await store.find(c, { where: { status: 'active' }, orderBy: { field: 'status', direction: 'asc' }, limit: 10 })).toEqual([]);
    // A later version (the same id made again after the delete) lands.
    await store.commit([version('i1', 'back', 8)]);
    expect(await store.get(c, 'i1')).toEqual({ id: 'i1', status: 'back', _position: pos(8) });
    // A lagging delete (at 3) does not remove a version written after it.
    await store.commit([version('i2', 'active', 4)]);
    await store.commit([removed('i2', 3)]);
    expect(await store.get(c, 'i2')).toEqual({ id: 'i2', status: 'active', _position: pos(4) });
    // A delete without a position (a derived entry) removes whatever is there, and a later write lands.
    await store.commit([{ collection: c, id: 'e1', doc: { id: 'e1', status: 'x' } }]);
    await store.commit([{ collection: c, id: 'e1', doc: null }]);
    expect(await store.get(c, 'e1')).toBeNull();
    await store.commit([{ collection: c, id: 'e1', doc: { id: 'e1', status: 'y' } }]);
    expect(await store.get(c, 'e1')).toEqual({ id: 'e1', status: 'y' });
  });

  test('a rebuild\'s reset forgets the deletes too (the same events replayed write the document again)', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [] }]);
    await store.commit([{ collection: c, id: 'r1', doc: { id: 'r1', _position: pos(5) }, position: pos(5) }]);
    await store.commit([{ collection: c, id: 'r1', doc: null, position: pos(9) }]);
    await store.reset([c], `contract-${c}`);
    await store.commit([{ collection: c, id: 'r1', doc: { id: 'r1', _position: pos(5) }, position: pos(5) }]);
    expect(await store.get(c, 'r1')).toEqual({ id: 'r1', _position: pos(5) });
  });

  test('a commit whose write fails part-way lands whole or not at all, and its checkpoint stays where it was', async () => {
    const c = collection();
    const feed = collection();
    const name = `proj_${run}_${n}`;
    await store.ensureCollections([
      { name: c, indexes: [{ fields: ['email'], unique: true }] },
      { name: feed, indexes: [] },
    ]);
    await store.commit([{ collection: c, id: 'held', doc: { id: 'held', email: 'dup@example.com' }, position: pos(1) }], { name, position: pos(1) });
    const batch = (email: string): DocumentWrite[] => [
      { collection: feed, id: 'e2', doc: { id: 'e2', type: 'thing.updated' } },
      { collection: c, id: 'one', doc: { id: 'one', email: 'one@example.com' }, position: pos(2) },
      { collection: c, id: 'two', doc: { id: 'two', email }, position: pos(3) }, // the failure, mid-commit
      { collection: c, id: 'three', doc: { id: 'three', email: 'three@example.com' }, position: pos(4) },
    ];
    await expect(store.commit(batch('dup@example.com'), { name, position: pos(4) })).rejects.toBeInstanceOf(UniqueConstraintError);
    // Every store: the checkpoint did not move, and nothing after the failing write landed.
    expect(await store.getCheckpoint(name)).toBe(pos(1));
    expect(await store.get(c, 'two')).toBeNull();
    expect(await store.get(c, 'three')).toBeNull();
    if (await (options.atomicCommit ?? (async () => true))(store)) {
      // A transactional store: nothing at all of the failed commit.
      expect(await store.get(c, 'one')).toBeNull();
      expect(await store.get(feed, 'e2')).toBeNull();
    }
    // Redelivered from the checkpoint (the projection fixed), the batch lands whole.
    await store.commit(batch('two@example.com'), { name, position: pos(4) });
    expect(await store.getCheckpoint(name)).toBe(pos(4));
    expect([...(await store.getMany(c, ['held', 'one', 'two', 'three'])).keys()].sort()).toEqual(['held', 'one', 'three', 'two']);
    expect(await store.get(feed, 'e2')).toEqual({ id: 'e2', type: 'thing.updated' });
  });

  test('a crash between writes: the restarted process finds the last whole checkpoint, and redelivery from it repairs every document', async () => {
    const c = collection();
    const feed = collection();
    const name = `proj_${run}_${n}`;
    await store.ensureCollections([
      { name: c, indexes: [{ fields: ['email'], unique: true }] },
      { name: feed, indexes: [] },
    ]);
    const doc = (id: string, version: number, email = `${id}@example.com`) => ({ id, version, email, _position: pos(version) });
    await store.commit(
      [
        { collection: feed, id: 'f1', doc: { id: 'f1' } },
        { collection: c, id: 'a', doc: doc('a', 1), position: pos(1) },
      ],
      { name, position: pos(1) },
    );
    // The next batch dies part-way: the derived entry and the first document are sent, the second
    // write fails (here the unique key `a` just took, standing for the process being killed).
    await expect(
      store.commit(
        [
          { collection: feed, id: 'f2', doc: { id: 'f2' } },
          { collection: c, id: 'a', doc: doc('a', 2, 'a2@example.com'), position: pos(2) },
          { collection: c, id: 'b', doc: doc('b', 3, 'a2@example.com'), position: pos(3) },
        ],
        { name, position: pos(3) },
      ),
    ).rejects.toThrow();
    // The restarted process opens the store afresh.
    const restarted = await makeStore();
    try {
      const checkpoint = await restarted.getCheckpoint(name);
      expect(checkpoint).toBe(pos(1));
      // What it finds: SQLite and MongoDB with transactions, exactly the state of the last commit;
      // MongoDB without transactions possibly more (derived entries first, then documents in order),
      // never a document beyond the failed write and never a checkpoint past it.
      expect(await restarted.get(c, 'b')).toBeNull();
      const a = await restarted.get<{ version: number }>(c, 'a');
      expect([1, 2]).toContain(a!.version);
      if (await (options.atomicCommit ?? (async () => true))(restarted)) {
        expect(a!.version).toBe(1);
        expect(await restarted.get(feed, 'f2')).toBeNull();
      }
      // Redelivery of everything after the checkpoint, as the projection produces it again.
      await restarted.commit(
        [
          { collection: feed, id: 'f2', doc: { id: 'f2' } },
          { collection: c, id: 'a', doc: doc('a', 2, 'a2@example.com'), position: pos(2) },
          { collection: c, id: 'b', doc: doc('b', 3), position: pos(3) },
        ],
        { name, position: pos(3) },
      );
      expect(await restarted.get(c, 'a')).toEqual(doc('a', 2, 'a2@example.com'));
      expect(await restarted.get(c, 'b')).toEqual(doc('b', 3));
      expect([...(await restarted.getMany(feed, ['f1', 'f2'])).keys()].sort()).toEqual(['f1', 'f2']);
      expect(await restarted.getCheckpoint(name)).toBe(pos(3));
    } finally {
      await restarted.close();
    }
  });

  test.each<[string, Record<string, unknown>]>([
    ['a NUL in a field name', { id: 'x', meta_data: { 'a\u0000b': 'v' } }],
    ['a control character in a field name', { id: 'x', meta_data: { 'a\u0007b': 'v' } }],
    ['a field name starting with $', { id: 'x', meta_data: { $where: 'v' } }],
    ['a dotted field name', { id: 'x', meta_data: { 'a.b': 'v' } }],
    ['nesting deeper than the stores hold', { id: 'x', meta_data: JSON.parse('{"a":'.repeat(120) + '1' + '}'.repeat(120)) }],
    ['a value that is not JSON (BigInt)', { id: 'x', amount: 10n }],
    ['an _id of its own', { id: 'x', _id: 'y' }],
  ])('a document with %s is refused by the port before it reaches the store, with the field named; nothing of the commit lands', async (_, bad) => {
    const c = collection();
    const name = `proj_${run}_${n}`;
    await store.ensureCollections([{ name: c, indexes: [] }]);
    const attempt = store.commit(
      [
        { collection: c, id: 'good', doc: { id: 'good' } },
        { collection: c, id: 'bad', doc: bad, position: pos(2) },
      ],
      { name, position: pos(2) },
    );
    await expect(attempt).rejects.toBeInstanceOf(UnstorableDocumentError);
    await expect(attempt).rejects.toThrow(new RegExp(`${c}/bad: .*(meta_data|amount|_id)`));
    expect(await store.get(c, 'good')).toBeNull();
    expect(await store.get(c, 'bad')).toBeNull();
    expect(await store.getCheckpoint(name)).toBeNull();
    // The same values as string VALUES are fine: only names and shapes are refused.
    await store.commit([{ collection: c, id: 'ok', doc: { id: 'ok', note: 'a.b $where a\u0000b' } }]);
    expect(await store.get(c, 'ok')).toEqual({ id: 'ok', note: 'a.b $where a\u0000b' });
  });

  test('null and missing sort values sort first ascending and last descending, and keyset paging crosses them both ways', async () => {
    const c = collection();
    await store.ensureCollections([{ name: c, indexes: [{ fields: ['acct', 'rank'] }] }]);
    const docs: Array<Record<string, unknown>> = [
      { id: 'p', acct: 'x', rank: 2 },
      { id: 'q', acct: 'x', rank: null },
      { id: 'r', acct: 'x' },
      { id: 's', acct: 'x', rank: 1 },
      { id: 't', acct: 'x', rank: 3 },
      { id: 'u', acct: 'x', rank: null },
      { id: 'v', acct: 'x', rank: 2 },
      { id: 'w', acct: 'y', rank: null },
    ];
    await store.commit(docs.map((doc) => ({ collection: c, id: doc.id as string, doc })));
    const ascending = ['q', 'r', 'u', 's', 'p', 'v', 't'];
    const list = async (direction: 'asc' | 'desc', limit: number) => {
      const out: string[] = [];
      let after: { value: string | number | null; id: string } | undefined;
      for (let i = 0; i < 20; i++) {
        const page = await store.find<{ id: string; rank?: number | null }>(c, { where: { acct: 'x' }, orderBy: { field: 'rank', direction }, after, limit });
        if (page.length === 0) break;
        out.push(...page.map((d) => d.id));
        const last = page[page.length - 1];
        after = { value: last.rank ?? null, id: last.id };
      }
      return out;
    };
    expect(await list('asc', 100)).toEqual(ascending);
    expect(await list('desc', 100)).toEqual([...ascending].reverse());
    for (const limit of [1, 2, 3]) {
      expect(await list('asc', limit)).toEqual(ascending);
      expect(await list('desc', limit)).toEqual([...ascending].reverse());
    }
  });
}
