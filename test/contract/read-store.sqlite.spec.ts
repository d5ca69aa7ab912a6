import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadStore } from '#read-store/sqlite-read-store.js';
import { readStoreContract } from './read-store.contract.js';

const file = join(mkdtempSync(join(tmpdir(), 'rs-contract-')), 'read.sqlite');

// Both places the commits can run (SQLITE_WRITER): the writer thread (the default) and the event loop.
describe.each(['thread', 'inline'] as const)('read store contract: embedded SQLite, writer %s', (writer) => {
  // Every call opens the same file: a second instance is what a restarted process opens.
  readStoreContract(async () => new SqliteReadStore(`${file}-${writer}`, { writer }));
});

describe('embedded SQLite read store: indexed fields as columns', () => {
  it('a table written before the columns existed is migrated: columns filled from the documents, old expression indexes replaced, filters and order unchanged', async () => {
    const old = join(mkdtempSync(join(tmpdir(), 'rs-migrate-')), 'read.sqlite');
    const db = new Database(old);
    db.exec('CREATE TABLE rm_things (id TEXT PRIMARY KEY, doc TEXT NOT NULL)');
    db.exec(`CREATE INDEX rm_things__owner__rank__id ON rm_things (json_extract(doc, '$.owner'), json_extract(doc, '$.rank'), id)`);
    const insert = db.prepare('INSERT INTO rm_things (id, doc) VALUES (?, ?)');
    insert.run('b', JSON.stringify({ id: 'b', owner: 'o1', rank: 2, live: true }));
    insert.run('a', JSON.stringify({ id: 'a', owner: 'o1', rank: 1, live: false }));
    insert.run('c', JSON.stringify({ id: 'c', owner: 'o2', rank: 3, live: true }));
    db.close();

    const store = new SqliteReadStore(old);
    await store.ensureCollections([{ name: 'things', indexes: [{ fields: ['owner', 'rank'] }, { fields: ['live'] }] }]);
    const found = await store.find<{ id: string }>('things', { where: { owner: 'o1' }, orderBy: { field: 'rank', direction: 'desc' }, limit: 10 });
    expect(found.map((d) => d.id)).toEqual(['b', 'a']);
    expect((await store.find<{ id: string }>('things', { where: { live: true }, orderBy: { field: 'rank', direction: 'asc' }, limit: 10 })).map((d) => d.id)).toEqual(['b', 'c']);
    await store.commit([{ collection: 'things', id: 'a', doc: { id: 'a', owner: 'o2', rank: 9, live: true } }]);
    expect((await store.find<{ id: string }>('things', { where: { owner: 'o2' }, orderBy: { field: 'rank', direction: 'asc' }, limit: 10 })).map((d) => d.id)).toEqual(['c', 'a']);
    await store.close();

    const check = new Database(old, { readonly: true });
    const indexes = (check.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_things' AND sql IS NOT NULL").all() as { name: string }[]).map((r) => r.name);
    expect(indexes.sort()).toEqual(['rm_things__x__live__id', 'rm_things__x__owner__rank__id']);
    expect(check.prepare('SELECT id, x_owner, x_rank, x_live FROM rm_things ORDER BY id').all()).toEqual([
      { id: 'a', x_owner: 'o2', x_rank: 9, x_live: 1 },
      { id: 'b', x_owner: 'o1', x_rank: 2, x_live: 1 },
      { id: 'c', x_owner: 'o2', x_rank: 3, x_live: 1 },
    ]);
    // The plan uses the column index, not a scan of every document.
    const plan = check.prepare("EXPLAIN QUERY PLAN SELECT doc FROM rm_things WHERE x_owner = 'o1' ORDER BY x_rank, id").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain('rm_things__x__owner__rank__id');
    check.close();
  });
});

describe('embedded SQLite read store: sparse indexes', () => {
  it('an index sparse on a field leaves out documents without it, and equality queries on the field use it with the same answers', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rs-sparse-')), 'read.sqlite');
    const store = new SqliteReadStore(file);
    await store.ensureCollections([{ name: 'entries', indexes: [{ fields: ['owner', 'tag', 'seq'], sparseOn: 'tag' }] }]);
    const docs = [
      { id: 'e1', owner: 'o', tag: 't1', seq: '3' },
      { id: 'e2', owner: 'o', tag: null, seq: '1' },
      { id: 'e3', owner: 'o', seq: '2' },
      { id: 'e4', owner: 'o', tag: 't1', seq: '0' },
    ];
    await store.commit(docs.map((doc) => ({ collection: 'entries', id: doc.id, doc })));
    const ids = async (tag: string | null) =>
      (await store.find<{ id: string }>('entries', { where: { owner: 'o', tag }, orderBy: { field: 'seq', direction: 'asc' }, limit: 10 })).map((d) => d.id);
    expect(await ids('t1')).toEqual(['e4', 'e1']);
    expect(await ids(null)).toEqual(['e2', 'e3']);
    expect((await store.find<{ id: string }>('entries', { where: { owner: 'o', tag: 't1' }, orderBy: { field: 'seq', direction: 'asc' }, after: { value: '0', id: 'e4' }, limit: 10 })).map((d) => d.id)).toEqual(['e1']);
    await store.close();
    const db = new Database(file, { readonly: true });
    const index = 'rm_entries__xp__owner__tag__seq__id';
    expect((db.prepare(`SELECT count(*) AS n FROM rm_entries INDEXED BY ${index} WHERE x_tag IS NOT NULL`).get() as { n: number }).n).toBe(2);
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT doc FROM rm_entries WHERE x_owner = ? AND x_tag = ? ORDER BY x_seq ASC, id ASC LIMIT ?").all('o', 't1', 10) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toContain(index);
    db.close();
  });
});
