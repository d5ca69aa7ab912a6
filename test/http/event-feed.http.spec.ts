import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Evt = { id: string; type: string; created: string; is_test: boolean; data: { object: { id: string; name?: string } } };

async function pageAll(key: string, query = '', limit = 3, from?: string): Promise<Evt[]> {
  const seen: Evt[] = [];
  let cursor: string | undefined = from;
  for (let guard = 0; guard < 100; guard++) {
    const sep = query ? '&' : '';
    const res = await t.as(key).get(`/v1/events?limit=${limit}${sep}${query}${cursor ? `&starting_after=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data);
    if (!res.body.has_more) return seen;
    cursor = res.body.data[res.body.data.length - 1].id;
  }
  throw new Error('feed did not end');
}

describe('event feed', () => {
  test('a consumer paging from the beginning sees every event of its account and mode once, in order, and resumes', async () => {
    const a = await t.account('Feed A');
    const b = await t.account('Feed B');
    const expected: string[] = [];
    const products: string[] = [];
    for (let i = 0; i < 4; i++) {
      t.clock.advanceMs(1000);
      const p = (await t.as(a.test_key).post('/v1/products', { name: `p${i}` })).body.id;
      products.push(p);
      expected.push(`product.created:${p}`);
      await t.as(b.test_key).post('/v1/products', { name: `other ${i}` });
      await t.as(a.live_key).post('/v1/products', { name: `live ${i}` });
      await t.as(a.test_key).post(`/v1/products/${p}/update`, { name: `p${i} v2` });
      expected.push(`product.updated:${p}`);
    }
    await t.as(a.test_key).delete(`/v1/products/${products[0]}`);
    expected.push(`product.deleted:${products[0]}`);

    const feed = await pageAll(a.test_key);
    expect(feed.map((e) => `${e.type}:${e.data.object.id}`)).toEqual(expected);
    expect(new Set(feed.map((e) => e.id)).size).toBe(feed.length);
    expect(feed.every((e) => e.is_test && /^evt_[0-9a-f]{32}$/.test(e.id))).toBe(true);
    expect(feed.map((e) => e.created)).toEqual([...feed.map((e) => e.created)].sort());
    expect(feed[feed.length - 1].data.object).toMatchObject({ id: products[0], deleted: true });

    // resume: a consumer that stopped after the fifth event gets exactly the rest
    const rest = await pageAll(a.test_key, '', 2, feed[4].id);
    expect(rest.map((e) => e.id)).toEqual(feed.slice(5).map((e) => e.id));

    // the live feed of the same account holds only live objects
    const live = await pageAll(a.live_key);
    expect(live).toHaveLength(4);
    expect(live.every((e) => !e.is_test)).toBe(true);
  });

  test('filters by type, by type family and by object (its full history, oldest first)', async () => {
    const a = await t.account('Feed filters');
    const p = (await t.as(a.test_key).post('/v1/products', { name: 'v1' })).body.id;
    const q = (await t.as(a.test_key).post('/v1/products', { name: 'q' })).body.id;
    await t.as(a.test_key).post(`/v1/products/${p}/update`, { name: 'v2' });
    await t.as(a.test_key).post(`/v1/products/${q}/update`, { name: 'q2' });
    await t.as(a.test_key).post(`/v1/products/${p}/update`, { name: 'v3' });

    const updated = await pageAll(a.test_key, 'type=product.updated');
    expect(updated.map((e) => e.data.object.name)).toEqual(['v2', 'q2', 'v3']);
    expect((await pageAll(a.test_key, 'type=product.*')).length).toBe(5);
    expect(await pageAll(a.test_key, 'type=customer.created')).toEqual([]);
    const history = await pageAll(a.test_key, `object_id=${p}`);
    expect(history.map((e) => [e.type, e.data.object.name])).toEqual([
      ['product.created', 'v1'],
      ['product.updated', 'v2'],
      ['product.updated', 'v3'],
    ]);
    expect((await t.as(a.test_key).get('/v1/events?type=Bad Type!')).status).toBe(400);
    // An empty filter (an unset shell variable) is refused by name, not read as no filter at all.
    for (const filter of ['object_id', 'customer', 'type', 'starting_after']) {
      const res = await t.as(a.test_key).get(`/v1/events?${filter}=`);
      expect([res.status, res.body.error?.code, res.body.error?.param]).toEqual([400, 'parameter_invalid', filter]);
    }
    expect((await t.as(a.test_key).get('/v1/products?limit=')).body.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  test('another account cannot read an event or use it as a cursor', async () => {
    const a = await t.account('Owner');
    const b = await t.account('Stranger');
    await t.as(a.test_key).post('/v1/products', { name: 'secret' });
    const [evt] = (await t.as(a.test_key).get('/v1/events')).body.data;
    expect((await t.as(b.test_key).get(`/v1/events/${evt.id}`)).status).toBe(404);
    expect((await t.as(a.live_key).get(`/v1/events/${evt.id}`)).status).toBe(404);
    expect((await t.as(b.test_key).get(`/v1/events?starting_after=${evt.id}`)).status).toBe(400);
  });
});
