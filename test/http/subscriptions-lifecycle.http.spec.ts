import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError, feed, lastEventId, plusDays } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let liveKey: string;

beforeAll(async () => {
  t = await startTestApp();
  const account = await t.account();
  key = account.test_key;
  liveKey = account.live_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const now = () => t.clock.now().toISOString();
const typesSince = async (before: string | undefined) => (await feed(api(), before)).map((e) => e.type);

async function activeSubscription(extra: Record<string, unknown> = {}) {
  const s = await billingSetup(api());
  const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card(), ...extra });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('active');
  return { ...s, sub: res.body };
}

async function migratePm(customer: string, token = 'simtok_approve_abc123') {
  const res = await api().post('/v1/payment_methods/migrate', {
    customer,
    gateway: 'gateway_a',
    type: 'card',
    token,
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

describe('get and list', () => {
  test('filters customer and status, newest first, cursor pagination', async () => {
    const a = await billingSetup(api());
    const b = await billingSetup(api());
    const ids: string[] = [];
    for (const payment of [card('approve'), card('decline'), card('approve'), card('decline')]) {
      t.clock.advanceMs(1000);
      const res = await api().post('/v1/subscriptions', { customer: a.customer.id, items: [{ price: a.monthly.id }], payment_information: payment });
      expect(res.status).toBe(200);
      ids.push(res.body.id);
    }
    t.clock.advanceMs(1000);
    const collect = await api().post('/v1/subscriptions', { customer: a.customer.id, items: [{ price: a.monthly.id }], collection_method: 'collect', days_until_due: 2 });
    ids.push(collect.body.id);
    const ofB = (await api().post('/v1/subscriptions', { customer: b.customer.id, items: [{ price: b.monthly.id }], payment_information: card('decline') })).body;

    const all = await api().get(`/v1/subscriptions?customer=${a.customer.id}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', url: '/v1/subscriptions', has_more: false });
    expect(all.body.data.map((x: any) => x.id)).toEqual([...ids].reverse());
    expect(all.body.data.every((x: any) => x.object === 'subscription' && x.customer === a.customer.id)).toBe(true);

    const incomplete = await api().get(`/v1/subscriptions?customer=${a.customer.id}&status=incomplete`);
    expect(incomplete.body.data.map((x: any) => x.id)).toEqual([ids[3], ids[1]]);
    const active = await api().get(`/v1/subscriptions?customer=${a.customer.id}&status=active`);
    expect(active.body.data.map((x: any) => x.id)).toEqual([ids[4], ids[2], ids[0]]);
    const anyIncomplete = (await api().get('/v1/subscriptions?status=incomplete&limit=100')).body.data.map((x: any) => x.id);
    expect(anyIncomplete).toEqual(expect.arrayContaining([ids[1], ids[3], ofB.id]));
    expect(anyIncomplete).not.toContain(ids[0]);

    const page1 = await api().get(`/v1/subscriptions?customer=${a.customer.id}&limit=2`);
    expect(page1.body.has_more).toBe(true);
    expect(page1.body.data.map((x: any) => x.id)).toEqual([ids[4], ids[3]]);
    const page2 = await api().get(`/v1/subscriptions?customer=${a.customer.id}&limit=2&starting_after=${ids[3]}`);
    expect(page2.body.has_more).toBe(true);
    expect(page2.body.data.map((x: any) => x.id)).toEqual([ids[2], ids[1]]);
    const page3 = await api().get(`/v1/subscriptions?customer=${a.customer.id}&limit=2&starting_after=${ids[1]}`);
    expect(page3.body.has_more).toBe(false);
    expect(page3.body.data.map((x: any) => x.id)).toEqual([ids[0]]);

    // the listed object is the one GET returns
    expect((await api().get(`/v1/subscriptions/${ids[0]}`)).body).toEqual(page3.body.data[0]);

    expectApiError(await api().get('/v1/subscriptions?status=sleeping'), 400, 'parameter_invalid', 'status');
    expectApiError(await api().get('/v1/subscriptions?limit=0'), 400, 'parameter_invalid', 'limit');
    expectApiError(await api().get('/v1/subscriptions/sub_doesnotexist'), 404, 'resource_missing', 'id');
  });

  test('a live key cannot see test subscriptions', async () => {
    const { sub, customer } = await activeSubscription();
    const live = t.as(liveKey);
    expectApiError(await live.get(`/v1/subscriptions/${sub.id}`), 404, 'resource_missing', 'id');
    expect((await live.get(`/v1/subscriptions?customer=${customer.id}`)).body.data).toEqual([]);
    expect((await live.get('/v1/subscriptions')).body.data).toEqual([]);
    expect((await live.get(`/v1/subscriptions/${sub.id}/history`)).status).toBe(404);
    expect((await live.get(`/v1/subscriptions/${sub.id}?as_of=${encodeURIComponent(now())}`)).status).toBe(404);
    expect((await live.get(`/v1/subscription_items/${sub.items[0].id}`)).status).toBe(404);
    const before = await lastEventId(api());
    expect((await live.post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' })).status).toBe(404);
    expect((await live.post(`/v1/subscriptions/${sub.id}/update`, { meta_data: { a: 'b' } })).status).toBe(404);
    expect((await live.post(`/v1/subscriptions/${sub.id}/pause`, {})).status).toBe(404);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toEqual(sub);
    await api().post('/v1/products', { name: 'sentinel' });
    expect(await typesSince(before)).toEqual(['product.created']);
  });
});

describe('update', () => {
  test('items: add, change quantity, delete; the subscription items follow', async () => {
    const { sub, product } = await activeSubscription();
    const monthly2 = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '15000' })).body;
    const first = sub.items[0].id;

    const added = await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ price: monthly2.id, quantity: 3 }] });
    expect(added.status).toBe(200);
    expect(added.body.items).toHaveLength(2);
    const second = added.body.items.find((i: any) => i.price.id === monthly2.id);
    expect(second).toMatchObject({ id: expect.stringMatching(/^si_/), quantity: 3 });
    expect((await api().get(`/v1/subscription_items/${second.id}`)).body).toMatchObject({ id: second.id, object: 'subscription_item', subscription: sub.id, quantity: 3 });

    const changed = await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ id: first, quantity: 4 }] });
    expect(changed.status).toBe(200);
    expect(changed.body.items.find((i: any) => i.id === first).quantity).toBe(4);
    expect((await api().get(`/v1/subscription_items/${first}`)).body.quantity).toBe(4);

    const deleted = await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ id: second.id, deleted: true }] });
    expect(deleted.status).toBe(200);
    expect(deleted.body.items.map((i: any) => i.id)).toEqual([first]);
    expectApiError(await api().get(`/v1/subscription_items/${second.id}`), 404, 'resource_missing', 'id');

    // the last recurring item cannot go, and an unknown item is named
    const last = await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ id: first, deleted: true }] });
    expectApiError(last, 400, 'parameter_invalid', 'items', 'A subscription needs at least one recurring price');
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ id: 'si_nope', quantity: 2 }] }), 404, 'resource_missing', 'items[0][id]');
    const yearly = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'year', billing_interval: 1, unit_price: '1' })).body;
    expectApiError(
      await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ price: yearly.id }] }),
      400,
      'parameter_invalid',
      'items',
      'All prices must have the same frequency (billing_period and billing_interval)',
    );
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.items.map((i: any) => [i.id, i.quantity])).toEqual([[first, 4]]);
  });

  test('discounts with duration_in_collections, and deleting one', async () => {
    const { sub } = await activeSubscription();
    const res = await api().post(`/v1/subscriptions/${sub.id}/update`, {
      discounts: [
        { code: 'WELCOME', percent: '10', duration_in_collections: 3 },
        { code: 'LOYAL', amount: '5000' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.discounts).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^sd_/), code: 'WELCOME', percent: '10', amount: null, duration_in_collections: 3 }),
      expect.objectContaining({ id: expect.stringMatching(/^sd_/), code: 'LOYAL', amount: '5000.00', percent: null, duration_in_collections: null }),
    ]);
    const [welcome, loyal] = res.body.discounts;

    const before = await lastEventId(api());
    const del = await api().delete(`/v1/subscriptions/${sub.id}/discounts/${welcome.id}`);
    expect(del.status).toBe(200);
    expect(del.body.discounts).toEqual([loyal]);
    expect(await typesSince(before)).toEqual(['subscription.updated']);
    expectApiError(await api().delete(`/v1/subscriptions/${sub.id}/discounts/${welcome.id}`), 404, 'resource_missing', 'id');
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.discounts).toEqual([loyal]);
  });

  test('payment_method: another stored method of the customer; a foreign one is refused', async () => {
    const { sub, customer } = await activeSubscription();
    const other = await migratePm(customer.id);
    const res = await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: other });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ payment_method: other, payment_information: null });

    const stranger = await billingSetup(api());
    const foreign = await migratePm(stranger.customer.id);
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: foreign }), 400, 'parameter_invalid', 'payment_method');
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.payment_method).toBe(other);
  });

  test('meta_data merges; "" removes a key; an update that changes nothing writes no event', async () => {
    const { sub } = await activeSubscription({ meta_data: { a: '1', b: '2' } });
    const res = await api().post(`/v1/subscriptions/${sub.id}/update`, { meta_data: { b: '', c: '3' } });
    expect(res.status).toBe(200);
    expect(res.body.meta_data).toEqual({ a: '1', c: '3' });
    const before = await lastEventId(api());
    const same = await api().post(`/v1/subscriptions/${sub.id}/update`, {});
    expect(same.status).toBe(200);
    await api().post('/v1/products', { name: 'sentinel' });
    expect(await typesSince(before)).toEqual(['product.created']);
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/update`, { meta_data: { x: 'y'.repeat(256) } }), 400, 'parameter_invalid', 'meta_data[x]');
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/update`, { days_until_due: 3 }), 400, 'parameter_invalid', 'days_until_due', 'days_until_due is only allowed for collection_method charge');
  });
});

describe('cancel, pause, resume', () => {
  test('period_end: pending_cancel; then now: canceled; then 409 naming the state', async () => {
    const { sub } = await activeSubscription();
    const before = await lastEventId(api());
    const pending = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ status: 'pending_cancel', cancel_at: sub.current_period_end, canceled_at: null });
    expect(sub.current_period_end).toBe(sub.next_renewal_date);

    t.clock.advanceMs(60_000);
    const canceled = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', canceled_at: now(), next_renewal_date: null });
    expect(await typesSince(before)).toEqual(['subscription.pending_canceled', 'subscription.canceled']);

    const again = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expectApiError(again, 409, 'invalid_state', null, /canceled/);
    const pause = await api().post(`/v1/subscriptions/${sub.id}/pause`, {});
    expectApiError(pause, 409, 'invalid_state', null, /canceled/);
    const periodEnd = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
    expectApiError(periodEnd, 409, 'invalid_state', null, /canceled/);
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/update`, { meta_data: { a: 'b' } }), 409, 'invalid_state', null, /canceled/);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('canceled');
  });

  test('cancel now from active; cancel at period_end is only for active subscriptions; cancel_at is required', async () => {
    const { sub } = await activeSubscription();
    const res = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expect(res.body).toMatchObject({ status: 'canceled', canceled_at: now() });
    expect((await feed(api(), undefined, `object_id=${sub.id}`)).pop()!.type).toBe('subscription.canceled');

    const s = await billingSetup(api());
    const incomplete = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline') })).body;
    expectApiError(await api().post(`/v1/subscriptions/${incomplete.id}/cancel`, { cancel_at: 'period_end' }), 409, 'invalid_state', null, /incomplete/);
    expect((await api().post(`/v1/subscriptions/${incomplete.id}/cancel`, { cancel_at: 'now' })).body.status).toBe('canceled');
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/cancel`, {}), 400, 'parameter_missing', 'cancel_at');
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'tomorrow' }), 400, 'parameter_invalid', 'cancel_at');
    expectApiError(await api().post('/v1/subscriptions/sub_nope/cancel', { cancel_at: 'now' }), 404, 'resource_missing', 'id');
  });

  test('pause with resumes_at, resume; resuming an active one is 409 naming active', async () => {
    const { sub } = await activeSubscription({ meta_data: { tier: 'gold' } });
    const resumesAt = plusDays(now(), 30);
    const before = await lastEventId(api());
    const paused = await api().post(`/v1/subscriptions/${sub.id}/pause`, { resumes_at: resumesAt });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', paused_at: now(), resumes_at: resumesAt });
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/pause`, {}), 409, 'invalid_state', null, /paused/);

    const resumed = await api().post(`/v1/subscriptions/${sub.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'active', paused_at: null, resumes_at: null });
    const events = await feed(api(), before);
    expect(events.map((e) => e.type)).toEqual(['subscription.paused', 'subscription.resumed']);
    expect(events[0].data.object).toMatchObject({ id: sub.id, status: 'paused', resumes_at: resumesAt, meta_data: { tier: 'gold' } });
    expect(events[1].data.object).toMatchObject({ id: sub.id, status: 'active', meta_data: { tier: 'gold' } });

    const again = await api().post(`/v1/subscriptions/${sub.id}/resume`);
    expectApiError(again, 409, 'invalid_state', null, /\bactive\b/);
    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/pause`, { resumes_at: '2020-01-01T00:00:00.000Z' }), 400, 'parameter_invalid', 'resumes_at');
    const plain = await api().post(`/v1/subscriptions/${sub.id}/pause`, {});
    expect(plain.body).toMatchObject({ status: 'paused', resumes_at: null });
  });
});

describe('subscription items', () => {
  test('create, get, update, delete; the last recurring item cannot be deleted', async () => {
    const { sub, product, setupFee } = await activeSubscription();
    const monthly2 = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '15000' })).body;

    const created = await api().post('/v1/subscription_items', { subscription: sub.id, price: monthly2.id, quantity: 2 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^si_/),
      object: 'subscription_item',
      subscription: sub.id,
      quantity: 2,
      price: { id: monthly2.id, unit_price: '15000.00' },
      product: { id: product.id },
      is_test: true,
    });
    const itemId = created.body.id;
    expect((await api().get(`/v1/subscription_items/${itemId}`)).body).toEqual(created.body);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.items.map((i: any) => i.id)).toEqual([sub.items[0].id, itemId]);

    const updated = await api().post(`/v1/subscription_items/${itemId}/update`, { quantity: 5 });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: itemId, quantity: 5 });
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.items.find((i: any) => i.id === itemId).quantity).toBe(5);

    // a one-time item is allowed next to recurring ones, but it does not count as recurring
    const fee = (await api().post('/v1/subscription_items', { subscription: sub.id, price: setupFee.id })).body;
    expect(fee).toMatchObject({ object: 'subscription_item', quantity: 1 });

    const del = await api().delete(`/v1/subscription_items/${itemId}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: itemId, object: 'subscription_item', deleted: true });
    expectApiError(await api().get(`/v1/subscription_items/${itemId}`), 404, 'resource_missing', 'id');
    expectApiError(await api().delete(`/v1/subscription_items/${itemId}`), 404, 'resource_missing', 'id');

    const before = await lastEventId(api());
    const lastOne = await api().delete(`/v1/subscription_items/${sub.items[0].id}`);
    expectApiError(lastOne, 400, 'parameter_invalid', 'id', 'A subscription needs at least one recurring price');
    await api().post('/v1/products', { name: 'sentinel' });
    expect(await typesSince(before)).toEqual(['product.created']);
    expect((await api().get(`/v1/subscription_items/${sub.items[0].id}`)).status).toBe(200);

    const yearly = (await api().post('/v1/prices', { product_id: product.id, type: 'recurring', billing_period: 'year', billing_interval: 1, unit_price: '1' })).body;
    const wrongFrequency = await api().post('/v1/subscription_items', { subscription: sub.id, price: yearly.id });
    expect(wrongFrequency.status).toBe(400);
    expect(wrongFrequency.body.error.message).toBe('All prices must have the same frequency (billing_period and billing_interval)');
    expectApiError(await api().post('/v1/subscription_items', { subscription: sub.id, price: 'price_nope' }), 404, 'resource_missing', 'price');
    expectApiError(await api().post('/v1/subscription_items', { subscription: 'sub_nope', price: monthly2.id }), 404, 'resource_missing', 'id');
    expectApiError(await api().post(`/v1/subscription_items/${sub.items[0].id}/update`, { quantity: 0 }), 400, 'parameter_invalid', 'quantity');
  });
});

describe('shipping', () => {
  test('shipping address and shipping item', async () => {
    const { sub } = await activeSubscription();
    const res = await api().post(`/v1/subscriptions/${sub.id}/shipping`, {
      name: 'Ana Gómez',
      phone: '+57 300 000 0000',
      address: { address_1: 'Calle 1 # 2-3', city: 'Bogotá', state: 'Cundinamarca', country: 'co' },
    });
    expect(res.status).toBe(200);
    expect(res.body.shipping).toEqual({
      name: 'Ana Gómez',
      phone: '+57 300 000 0000',
      address: { address_1: 'Calle 1 # 2-3', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: null, country: 'CO' },
    });
    const item = await api().post(`/v1/subscriptions/${sub.id}/shipping_item`, { description: ' Envío nacional ', amount: '12000' });
    expect(item.status).toBe(200);
    expect(item.body.shipping_item).toEqual({ description: 'Envío nacional', amount: '12000.00' });
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ shipping: res.body.shipping, shipping_item: item.body.shipping_item });

    expectApiError(await api().post(`/v1/subscriptions/${sub.id}/shipping_item`, { description: 'x', amount: '1.001' }), 400, 'parameter_invalid', expect.stringMatching(/amount/) as never);
    expect((await api().post(`/v1/subscriptions/${sub.id}/shipping`, { name: 'x' })).status).toBe(400);
  });
});

describe('meta_data travels in events', () => {
  test('every subscription event carries the meta_data of its moment in data.object', async () => {
    const { sub } = await activeSubscription({ meta_data: { order: 'O-1' } });
    await api().post(`/v1/subscriptions/${sub.id}/update`, { meta_data: { channel: 'web' } });
    await api().post(`/v1/subscriptions/${sub.id}/pause`, {});
    await api().post(`/v1/subscriptions/${sub.id}/resume`);
    await api().post(`/v1/subscriptions/${sub.id}/shipping_item`, { description: 'Envío', amount: '5000' });
    await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
    await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    const events = await feed(api(), undefined, `object_id=${sub.id}`);
    expect(events.map((e) => e.type)).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.updated',
      'subscription.updated',
      'subscription.paused',
      'subscription.resumed',
      'subscription.updated',
      'subscription.pending_canceled',
      'subscription.canceled',
    ]);
    const [created, activated, ...rest] = events;
    expect(created.data.object.meta_data).toEqual({ order: 'O-1' });
    expect(activated.data.object.meta_data).toEqual({ order: 'O-1' });
    // the payment_method_saved update, then the merge
    expect(rest[0].data.object.meta_data).toEqual({ order: 'O-1' });
    for (const e of rest.slice(1)) expect(e.data.object.meta_data).toEqual({ order: 'O-1', channel: 'web' });
    // the collection events of a subscription carry its meta_data too
    const collectionEvents = await feed(api(), undefined, `object_id=${sub.latest_collection}`);
    expect(collectionEvents.length).toBeGreaterThan(0);
    for (const e of collectionEvents) expect(e.data.object.meta_data).toEqual({ order: 'O-1' });
  });
});
