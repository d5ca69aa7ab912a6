import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
let n = 0;
const code = () => `CODE${++n}${Date.now() % 100000}`;

describe('coupons', () => {
  test('create, get, list, update, delete', async () => {
    const c = code();
    const res = await api().post('/v1/coupons', { code: c, percent: '15', duration_in_collections: 2, max_redemptions: 10, meta_data: { k: 'v' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^coupon_/), object: 'coupon', code: c, percent: '15', amount: null, duration_in_collections: 2, max_redemptions: 10, times_redeemed: 0, active: true, is_test: true });
    const id = res.body.id;
    expect((await api().get(`/v1/coupons/${id}`)).body.code).toBe(c);
    expect((await api().get('/v1/coupons')).body.data.map((x: { id: string }) => x.id)).toContain(id);
    const updated = await api().post(`/v1/coupons/${id}/update`, { name: 'Quince', max_redemptions: 20 });
    expect(updated.body).toMatchObject({ name: 'Quince', max_redemptions: 20, percent: '15' });
    expect((await api().post(`/v1/coupons/${id}/update`, { percent: '20' })).body.error).toMatchObject({ code: 'parameter_unknown', param: 'percent' });
    expect((await api().delete(`/v1/coupons/${id}`)).body).toEqual({ id, object: 'coupon', deleted: true });
    expect((await api().get(`/v1/coupons/${id}`)).status).toBe(404);
    // the code is free again
    expect((await api().post('/v1/coupons', { code: c, percent: '5' })).status).toBe(200);
  });

  test('rejections: duplicate code (any case), amount without currency, both amount and percent; another mode sees nothing', async () => {
    const c = code();
    await api().post('/v1/coupons', { code: c, amount: '5000', currency: 'COP' });
    const dup = await api().post('/v1/coupons', { code: c.toLowerCase(), percent: '5' });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'resource_already_exists', param: 'code' });
    expect((await api().post('/v1/coupons', { code: code(), amount: '5000' })).body.error).toMatchObject({ code: 'parameter_missing', param: 'currency' });
    expect((await api().post('/v1/coupons', { code: code(), amount: '5000', percent: '3', currency: 'COP' })).status).toBe(400);
  });

  test('a subscription with discounts [{code}] takes the coupon amount (every cycle: the request names no duration) and redeems it', async () => {
    const s = await billingSetup(api());
    const c = code();
    const coupon = (await api().post('/v1/coupons', { code: c, amount: '9900', currency: 'COP', duration_in_collections: 3 })).body;
    const sub = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card(), discounts: [{ code: c }] });
    expect(sub.status).toBe(200);
    expect(sub.body.discounts).toEqual([expect.objectContaining({ code: c, amount: '9900.00', percent: null, duration_in_collections: null })]);
    const col = (await api().get(`/v1/collections/${sub.body.latest_collection}`)).body;
    expect(col.total).toBe('40000.00');
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    const unknown = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card(), discounts: [{ code: 'NOPE-XYZ' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'coupon_invalid', param: 'discounts[0][code]' });
  });

  test('redemptions are counted exactly under concurrent use: max_redemptions 3, ten subscriptions at once → three', async () => {
    const s = await billingSetup(api());
    const c = code();
    const coupon = (await api().post('/v1/coupons', { code: c, percent: '10', max_redemptions: 3 })).body;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api().post('/v1/subscriptions', { customer: s.customer.id, collection_method: 'collect', days_until_due: 5, items: [{ price: s.monthly.id }], discounts: [{ code: c }] })),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('coupon_used_up');
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(3);
  });

  test('POST /v1/subscriptions/{id}/update with discounts [{code}] takes the coupon, redeems it once per subscription, and refuses a used-up or unknown one', async () => {
    const s = await billingSetup(api());
    const c = code();
    const coupon = (await api().post('/v1/coupons', { code: c, percent: '10', duration_in_collections: 2, max_redemptions: 2 })).body;
    const subs = await Promise.all([0, 1, 2].map(() => api().post('/v1/subscriptions', { customer: s.customer.id, collection_method: 'collect', days_until_due: 5, items: [{ price: s.monthly.id }] })));
    const [a, b, cc] = subs.map((r) => r.body.id as string);
    const upd = await api().post(`/v1/subscriptions/${a}/update`, { discounts: [{ code: c }] });
    expect(upd.status).toBe(200);
    expect(upd.body.discounts).toEqual([expect.objectContaining({ code: c, percent: '10', amount: null, duration_in_collections: null })]);
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    // Naming it again on the same subscription counts nothing.
    expect((await api().post(`/v1/subscriptions/${a}/update`, { discounts: [{ code: c }], meta_data: { again: 'yes' } })).status).toBe(200);
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
    // Two more subscriptions at once, one redemption left: exactly one gets it.
    const both = await Promise.all([b, cc].map((id) => api().post(`/v1/subscriptions/${id}/update`, { discounts: [{ code: c }] })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(both.find((r) => r.status !== 200)!.body.error.code).toBe('coupon_used_up');
    expect((await api().get(`/v1/coupons/${coupon.id}`)).body.times_redeemed).toBe(2);
    const loser = both[0].status === 200 ? cc : b;
    expect((await api().get(`/v1/subscriptions/${loser}`)).body.discounts).toEqual([]);
    const unknown = await api().post(`/v1/subscriptions/${a}/update`, { discounts: [{ code: 'NOPE-XYZ' }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'coupon_invalid', param: 'discounts[0][code]' });
    // The next collection carries the discount: the renewal of `a` is 10 % off.
    expect((await api().get(`/v1/subscriptions/${a}`)).body.discounts[0].code).toBe(c);
  });
});
