import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let liveKey: string;
let productId: string;

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account();
  key = account.test_key;
  liveKey = account.live_key;
  productId = (await t.as(key).post('/v1/products', { name: 'Plan Oro' })).body.id;
});
afterAll(() => t.close());

const monthly = () => ({ product_id: productId, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '15000' });

async function expectRejected(body: object, status: number, code: string, param: string | null) {
  const res = await t.as(key).post('/v1/prices', body);
  expect({ status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({ status, code, param });
  expect(res.body.error.type).toBe('invalid_request_error');
  expect(typeof res.body.error.message).toBe('string');
}

describe('create', () => {
  test('a standard recurring price, with defaults; GET returns the same', async () => {
    const res = await t.as(key).post('/v1/prices', { ...monthly(), meta_data: { plan: 'gold' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^price_[0-9A-Za-z]{24}$/),
      object: 'price',
      product_id: productId,
      type: 'recurring',
      pricing_model: 'standard',
      currency: 'COP',
      unit_price: '15000.00',
      billing_period: 'month',
      billing_interval: 1,
      pricing_tiers: null,
      ntp_pricing: null,
      active: true,
      meta_data: { plan: 'gold' },
      created_date: '2026-11-23 10:00:00',
      is_test: true,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'object',
      'product_id',
      'type',
      'pricing_model',
      'currency',
      'unit_price',
      'billing_period',
      'billing_interval',
      'pricing_tiers',
      'ntp_pricing',
      'active',
      'meta_data',
      'created_date',
      'is_test',
    ]);
    const got = await t.as(key).get(`/v1/prices/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  test('a one_time price has null billing_period and billing_interval; currency is stored upper-case', async () => {
    const res = await t.as(key).post('/v1/prices', { product_id: productId, type: 'one_time', currency: 'usd', unit_price: '9.5', active: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'one_time',
      currency: 'USD',
      unit_price: '9.50',
      billing_period: null,
      billing_interval: null,
      active: false,
      meta_data: {},
    });
  });

  test('amounts follow the currency digits: JPY has none', async () => {
    const res = await t.as(key).post('/v1/prices', { ...monthly(), currency: 'JPY', unit_price: '1200', billing_period: 'year', billing_interval: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ currency: 'JPY', unit_price: '1200', billing_period: 'year', billing_interval: 2 });
  });

  test('graduated and volume prices carry their tiers with formatted amounts', async () => {
    for (const pricing_model of ['graduated', 'volume']) {
      const { unit_price: _, ...base } = monthly();
      const res = await t.as(key).post('/v1/prices', {
        ...base,
        pricing_model,
        pricing_tiers: {
          tiers: [
            { up_to: 10, unit_price: '1000', flat_price: '500' },
            { up_to: 100, unit_price: '900.5' },
            { up_to: null, unit_price: '800' },
          ],
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ pricing_model, unit_price: null, ntp_pricing: null });
      expect(res.body.pricing_tiers).toEqual({
        tiers: [
          { up_to: 10, unit_price: '1000.00', flat_price: '500.00' },
          { up_to: 100, unit_price: '900.50', flat_price: null },
          { up_to: null, unit_price: '800.00', flat_price: null },
        ],
      });
    }
  });

  test('ntp prices: bounds optional ({}), formatted when given', async () => {
    const empty = await t.as(key).post('/v1/prices', { product_id: productId, type: 'one_time', pricing_model: 'ntp', ntp_pricing: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({
      pricing_model: 'ntp',
      unit_price: null,
      pricing_tiers: null,
      ntp_pricing: { min_amount: null, max_amount: null, suggested_amount: null },
    });
    const bounded = await t.as(key).post('/v1/prices', {
      product_id: productId,
      type: 'one_time',
      pricing_model: 'ntp',
      ntp_pricing: { min_amount: '10000', suggested_amount: '50000', max_amount: '500000.5' },
    });
    expect(bounded.status).toBe(200);
    expect(bounded.body.ntp_pricing).toEqual({ min_amount: '10000.00', max_amount: '500000.50', suggested_amount: '50000.00' });
  });
});

describe('create rejections name the parameter', () => {
  test('product_id: missing, unknown, deleted, another account or mode', async () => {
    const { product_id: _, ...noProduct } = monthly();
    await expectRejected(noProduct, 400, 'parameter_missing', 'product_id');
    await expectRejected({ ...monthly(), product_id: 'prod_doesnotexist' }, 404, 'resource_missing', 'product_id');
    const other = await t.account('Other merchant');
    const foreign = (await t.as(other.test_key).post('/v1/products', { name: 'Foreign' })).body.id;
    await expectRejected({ ...monthly(), product_id: foreign }, 404, 'resource_missing', 'product_id');
    const live = (await t.as(liveKey).post('/v1/products', { name: 'Live' })).body.id;
    await expectRejected({ ...monthly(), product_id: live }, 404, 'resource_missing', 'product_id');
    const gone = (await t.as(key).post('/v1/products', { name: 'Gone' })).body.id;
    expect((await t.as(key).delete(`/v1/products/${gone}`)).status).toBe(200);
    await expectRejected({ ...monthly(), product_id: gone }, 404, 'resource_missing', 'product_id');
  });

  test('currency must be an ISO 4217 code', async () => {
    await expectRejected({ ...monthly(), currency: 'XYZ' }, 400, 'parameter_invalid', 'currency');
    await expectRejected({ ...monthly(), currency: 5 }, 400, 'parameter_invalid', 'currency');
    await expectRejected({ ...monthly(), currency: null }, 400, 'parameter_invalid', 'currency');
  });

  test('type, billing_period and billing_interval', async () => {
    const { type: _, ...noType } = monthly();
    await expectRejected(noType, 400, 'parameter_missing', 'type');
    await expectRejected({ ...monthly(), type: 'monthly' }, 400, 'parameter_invalid', 'type');
    const { billing_period: _p, ...noPeriod } = monthly();
    await expectRejected(noPeriod, 400, 'parameter_missing', 'billing_period');
    const { billing_interval: _i, ...noInterval } = monthly();
    await expectRejected(noInterval, 400, 'parameter_missing', 'billing_interval');
    await expectRejected({ ...monthly(), billing_period: 'fortnight' }, 400, 'parameter_invalid', 'billing_period');
    await expectRejected({ ...monthly(), billing_interval: 0 }, 400, 'parameter_invalid', 'billing_interval');
    await expectRejected({ ...monthly(), billing_interval: 1.5 }, 400, 'parameter_invalid', 'billing_interval');
    await expectRejected({ ...monthly(), billing_interval: '1' }, 400, 'parameter_invalid', 'billing_interval');
    await expectRejected({ ...noInterval, type: 'one_time' }, 400, 'parameter_invalid', 'billing_period');
    await expectRejected({ ...noPeriod, type: 'one_time' }, 400, 'parameter_invalid', 'billing_interval');
    await expectRejected({ ...monthly(), billing_period: null }, 400, 'parameter_invalid', 'billing_period');
  });

  test('pricing_model and the fields each model requires or rejects', async () => {
    const { unit_price: _, ...base } = monthly();
    const tiers = { tiers: [{ up_to: null, unit_price: '1' }] };
    await expectRejected({ ...monthly(), pricing_model: 'tiered' }, 400, 'parameter_invalid', 'pricing_model');
    await expectRejected(base, 400, 'parameter_missing', 'unit_price');
    await expectRejected({ ...monthly(), pricing_tiers: tiers }, 400, 'parameter_invalid', 'pricing_tiers');
    await expectRejected({ ...monthly(), ntp_pricing: {} }, 400, 'parameter_invalid', 'ntp_pricing');
    await expectRejected({ ...base, pricing_model: 'graduated' }, 400, 'parameter_missing', 'pricing_tiers');
    await expectRejected({ ...monthly(), pricing_model: 'volume', pricing_tiers: tiers }, 400, 'parameter_invalid', 'unit_price');
    await expectRejected({ ...base, pricing_model: 'volume', pricing_tiers: tiers, ntp_pricing: {} }, 400, 'parameter_invalid', 'ntp_pricing');
    await expectRejected({ ...base, pricing_model: 'ntp' }, 400, 'parameter_missing', 'ntp_pricing');
    await expectRejected({ ...monthly(), pricing_model: 'ntp', ntp_pricing: {} }, 400, 'parameter_invalid', 'unit_price');
    await expectRejected({ ...base, pricing_model: 'ntp', ntp_pricing: {}, pricing_tiers: tiers }, 400, 'parameter_invalid', 'pricing_tiers');
  });

  test('amounts: decimal strings ≥ 0 with at most the currency digits', async () => {
    await expectRejected({ ...monthly(), unit_price: 15000 }, 400, 'parameter_invalid', 'unit_price');
    await expectRejected({ ...monthly(), unit_price: '-1' }, 400, 'parameter_invalid', 'unit_price');
    await expectRejected({ ...monthly(), unit_price: '1e3' }, 400, 'parameter_invalid', 'unit_price');
    await expectRejected({ ...monthly(), unit_price: '1.001' }, 400, 'parameter_invalid', 'unit_price');
    await expectRejected({ ...monthly(), currency: 'JPY', unit_price: '100.5' }, 400, 'parameter_invalid', 'unit_price');
  });

  test('pricing_tiers: shape, order of up_to, last tier unbounded, amounts', async () => {
    const { unit_price: _, ...base } = monthly();
    const tiered = (tiers: unknown) => ({ ...base, pricing_model: 'graduated', pricing_tiers: { tiers } });
    await expectRejected(tiered([]), 400, 'parameter_invalid', 'pricing_tiers[tiers]');
    await expectRejected({ ...base, pricing_model: 'graduated', pricing_tiers: {} }, 400, 'parameter_missing', 'pricing_tiers[tiers]');
    await expectRejected(tiered('all'), 400, 'parameter_invalid', 'pricing_tiers[tiers]');
    await expectRejected(tiered([5]), 400, 'parameter_invalid', 'pricing_tiers[tiers]');
    await expectRejected(tiered([{ up_to: 10, unit_price: '1' }]), 400, 'parameter_invalid', 'pricing_tiers[tiers][0][up_to]');
    await expectRejected(
      tiered([{ up_to: 10, unit_price: '1' }, { up_to: 10, unit_price: '1' }, { up_to: null, unit_price: '1' }]),
      400,
      'parameter_invalid',
      'pricing_tiers[tiers][1][up_to]',
    );
    await expectRejected(
      tiered([{ up_to: null, unit_price: '1' }, { up_to: null, unit_price: '1' }]),
      400,
      'parameter_invalid',
      'pricing_tiers[tiers][0][up_to]',
    );
    await expectRejected(tiered([{ up_to: 0, unit_price: '1' }, { up_to: null, unit_price: '1' }]), 400, 'parameter_invalid', 'pricing_tiers[tiers][0][up_to]');
    await expectRejected(tiered([{ unit_price: '1' }]), 400, 'parameter_missing', 'pricing_tiers[tiers][0][up_to]');
    await expectRejected(tiered([{ up_to: null }]), 400, 'parameter_missing', 'pricing_tiers[tiers][0][unit_price]');
    await expectRejected(
      tiered([{ up_to: 5, unit_price: '1' }, { up_to: null, unit_price: '1.001' }]),
      400,
      'parameter_invalid',
      'pricing_tiers[tiers][1][unit_price]',
    );
    await expectRejected(
      tiered([{ up_to: 5, unit_price: '1', flat_price: '-3' }, { up_to: null, unit_price: '1' }]),
      400,
      'parameter_invalid',
      'pricing_tiers[tiers][0][flat_price]',
    );
    await expectRejected(tiered([{ up_to: null, unit_price: '1', colour: 'red' }]), 400, 'parameter_unknown', 'pricing_tiers[tiers][0][colour]');
  });

  test('ntp_pricing: amounts and min ≤ suggested ≤ max', async () => {
    const ntp = (ntp_pricing: unknown) => ({ product_id: productId, type: 'one_time', pricing_model: 'ntp', ntp_pricing });
    await expectRejected(ntp({ min_amount: '-5' }), 400, 'parameter_invalid', 'ntp_pricing[min_amount]');
    await expectRejected(ntp({ max_amount: '5.123' }), 400, 'parameter_invalid', 'ntp_pricing[max_amount]');
    await expectRejected(ntp({ suggested_amount: 5 }), 400, 'parameter_invalid', 'ntp_pricing[suggested_amount]');
    await expectRejected(ntp({ min_amount: '10', max_amount: '9' }), 400, 'parameter_invalid', 'ntp_pricing[min_amount]');
    await expectRejected(ntp({ min_amount: '10', suggested_amount: '9' }), 400, 'parameter_invalid', 'ntp_pricing[suggested_amount]');
    await expectRejected(ntp({ max_amount: '10', suggested_amount: '11' }), 400, 'parameter_invalid', 'ntp_pricing[suggested_amount]');
    await expectRejected(ntp({ fixed: '10' }), 400, 'parameter_unknown', 'ntp_pricing[fixed]');
    await expectRejected(ntp(null), 400, 'parameter_invalid', 'ntp_pricing');
  });

  test('active, meta_data and unknown fields', async () => {
    await expectRejected({ ...monthly(), active: 'yes' }, 400, 'parameter_invalid', 'active');
    await expectRejected({ ...monthly(), meta_data: { k: 'v'.repeat(256) } }, 400, 'parameter_invalid', 'meta_data[k]');
    await expectRejected({ ...monthly(), nickname: 'x' }, 400, 'parameter_unknown', 'nickname');
  });
});

describe('read', () => {
  test('another account, or the other mode, gets 404 on GET, update and delete', async () => {
    const price = (await t.as(key).post('/v1/prices', monthly())).body;
    const other = await t.account('Stranger');
    for (const k of [liveKey, other.test_key]) {
      const get = await t.as(k).get(`/v1/prices/${price.id}`);
      expect(get.status).toBe(404);
      expect(get.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing', param: 'id' });
      expect((await t.as(k).post(`/v1/prices/${price.id}/update`, { active: false })).status).toBe(404);
      expect((await t.as(k).delete(`/v1/prices/${price.id}`)).status).toBe(404);
      expect((await t.as(k).get('/v1/prices')).body.data.map((p: { id: string }) => p.id)).not.toContain(price.id);
    }
    expect((await t.as(key).get(`/v1/prices/${price.id}`)).body.active).toBe(true);
    expect((await t.as(key).get('/v1/prices/price_unknown')).status).toBe(404);
  });

  test('lists newest first with cursor pagination and filters', async () => {
    const acct = await t.account('Lister');
    const k = acct.test_key;
    const p1 = (await t.as(k).post('/v1/products', { name: 'A' })).body.id;
    const p2 = (await t.as(k).post('/v1/products', { name: 'B' })).body.id;
    const bodies = [
      { product_id: p1, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '100' },
      { product_id: p1, type: 'one_time', unit_price: '200', active: false },
      { product_id: p2, type: 'recurring', billing_period: 'year', billing_interval: 1, unit_price: '300', currency: 'USD' },
      { product_id: p2, type: 'one_time', unit_price: '400' },
      { product_id: p1, type: 'one_time', unit_price: '500', currency: 'usd' },
    ];
    const ids: string[] = [];
    for (const body of bodies) {
      t.clock.advanceMs(1000);
      const res = await t.as(k).post('/v1/prices', body);
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    const idsOf = (res: { body: { data: { id: string }[] } }) => res.body.data.map((p) => p.id);

    const first = await t.as(k).get('/v1/prices?limit=2');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', url: '/v1/prices', has_more: true });
    expect(idsOf(first)).toEqual([ids[4], ids[3]]);
    const second = await t.as(k).get(`/v1/prices?limit=3&starting_after=${ids[3]}`);
    expect(idsOf(second)).toEqual([ids[2], ids[1], ids[0]]);
    expect(second.body.has_more).toBe(false);

    expect(idsOf(await t.as(k).get(`/v1/prices?product_id=${p1}`))).toEqual([ids[4], ids[1], ids[0]]);
    expect(idsOf(await t.as(k).get('/v1/prices?active=false'))).toEqual([ids[1]]);
    expect(idsOf(await t.as(k).get('/v1/prices?active=true'))).toEqual([ids[4], ids[3], ids[2], ids[0]]);
    expect(idsOf(await t.as(k).get('/v1/prices?type=recurring'))).toEqual([ids[2], ids[0]]);
    expect(idsOf(await t.as(k).get('/v1/prices?currency=usd'))).toEqual([ids[4], ids[2]]);
    expect(idsOf(await t.as(k).get(`/v1/prices?product_id=${p1}&type=one_time&active=true`))).toEqual([ids[4]]);
    expect(idsOf(await t.as(k).get('/v1/prices?product_id=prod_none'))).toEqual([]);

    for (const [query, param] of [
      ['active=yes', 'active'],
      ['active=1', 'active'],
      ['type=monthly', 'type'],
      ['currency=pesos', 'currency'],
      ['limit=0', 'limit'],
      ['starting_after=price_nope', 'starting_after'],
      ['colour=red', 'colour'],
    ]) {
      const res = await t.as(k).get(`/v1/prices?${query}`);
      expect({ query, status: res.status, param: res.body.error?.param }).toEqual({ query, status: 400, param });
    }
  });
});

describe('update', () => {
  test('changes active and merges meta_data', async () => {
    const price = (await t.as(key).post('/v1/prices', { ...monthly(), meta_data: { a: '1', b: '2' } })).body;
    const upd = await t.as(key).post(`/v1/prices/${price.id}/update`, { active: false, meta_data: { a: '', c: '3' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ ...price, active: false, meta_data: { b: '2', c: '3' } });
    expect((await t.as(key).get(`/v1/prices/${price.id}`)).body).toEqual(upd.body);
  });

  test('every other field is an unknown parameter (prices are immutable)', async () => {
    const price = (await t.as(key).post('/v1/prices', monthly())).body;
    for (const field of ['unit_price', 'currency', 'type', 'billing_period', 'billing_interval', 'pricing_model', 'product_id', 'pricing_tiers', 'ntp_pricing']) {
      const res = await t.as(key).post(`/v1/prices/${price.id}/update`, { [field]: price[field] ?? 'x' });
      expect({ field, status: res.status, code: res.body.error?.code, param: res.body.error?.param }).toEqual({
        field,
        status: 400,
        code: 'parameter_unknown',
        param: field,
      });
    }
    const bad = await t.as(key).post(`/v1/prices/${price.id}/update`, { active: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('active');
    const nul = await t.as(key).post(`/v1/prices/${price.id}/update`, { active: null });
    expect(nul.status).toBe(400);
  });

  test('nothing changed: 200 with the price, and no event', async () => {
    const price = (await t.as(key).post('/v1/prices', { ...monthly(), meta_data: { a: '1' } })).body;
    for (const body of [{}, { active: true }, { meta_data: { a: '1', gone: '' } }]) {
      const res = await t.as(key).post(`/v1/prices/${price.id}/update`, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(price);
    }
    const events = await t.as(key).get(`/v1/events?object_id=${price.id}`);
    expect(events.body.data.map((e: { type: string }) => e.type)).toEqual(['price.created']);
  });
});

describe('delete', () => {
  test('deleted prices are 404 and hidden from lists; deleting again is 404', async () => {
    const price = (await t.as(key).post('/v1/prices', monthly())).body;
    const del = await t.as(key).delete(`/v1/prices/${price.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: price.id, object: 'price', deleted: true });
    expect((await t.as(key).get(`/v1/prices/${price.id}`)).status).toBe(404);
    expect((await t.as(key).post(`/v1/prices/${price.id}/update`, { active: false })).status).toBe(404);
    expect((await t.as(key).delete(`/v1/prices/${price.id}`)).status).toBe(404);
    const list = await t.as(key).get(`/v1/prices?product_id=${productId}&limit=100`);
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(price.id);
  });

  test('a product with a price cannot be deleted (409 invalid_state); once its prices are deleted it can', async () => {
    const product = (await t.as(key).post('/v1/products', { name: 'With prices' })).body.id;
    const a = (await t.as(key).post('/v1/prices', { ...monthly(), product_id: product })).body.id;
    const b = (await t.as(key).post('/v1/prices', { product_id: product, type: 'one_time', unit_price: '1' })).body.id;
    const refused = await t.as(key).delete(`/v1/products/${product}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_state' });
    expect((await t.as(key).delete(`/v1/prices/${a}`)).status).toBe(200);
    expect((await t.as(key).delete(`/v1/products/${product}`)).status).toBe(409);
    expect((await t.as(key).delete(`/v1/prices/${b}`)).status).toBe(200);
    const ok = await t.as(key).delete(`/v1/products/${product}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ id: product, object: 'product', deleted: true });
  });
});

describe('event feed', () => {
  test('price.created, price.updated and price.deleted carry data.object as it stood after each', async () => {
    const acct = await t.account('Feed');
    const k = acct.test_key;
    const product = (await t.as(k).post('/v1/products', { name: 'P' })).body.id;
    const price = (await t.as(k).post('/v1/prices', { product_id: product, type: 'one_time', unit_price: '2500' })).body;
    await t.as(k).post(`/v1/prices/${price.id}/update`, { active: false });
    await t.as(k).delete(`/v1/prices/${price.id}`);

    const feed = await t.as(k).get('/v1/events?type=price.*');
    expect(feed.status).toBe(200);
    expect(feed.body.data.map((e: { type: string }) => e.type)).toEqual(['price.created', 'price.updated', 'price.deleted']);
    const [created, updated, deleted] = feed.body.data;
    expect(created).toMatchObject({ id: expect.stringMatching(/^evt_/), object: 'event', is_test: true, data: { object: price } });
    expect(updated.data.object).toEqual({ ...price, active: false });
    expect(deleted.data.object).toEqual({ ...price, active: false, deleted: true });
    const history = await t.as(k).get(`/v1/events?object_id=${price.id}`);
    expect(history.body.data.map((e: { id: string }) => e.id)).toEqual([created.id, updated.id, deleted.id]);
    expect((await t.as(acct.live_key).get('/v1/events?type=price.*')).body.data).toEqual([]);
  });
});
