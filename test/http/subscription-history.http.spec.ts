import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError, feed, history, type FeedEvent } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  otherKey = (await t.account('Other merchant')).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const now = () => t.clock.now().toISOString();
const asOf = (id: string, at: string) => api().get(`/v1/subscriptions/${id}?as_of=${encodeURIComponent(at)}`);

/** Whether a feed entry is about subscription `id` or one of its collections, transactions, charges. */
const belongsTo = (id: string) => (e: FeedEvent) => e.data.object.id === id || e.data.object.subscription === id;

describe('GET /v1/subscriptions/{id}/history', () => {
  test('events of the subscription and of its collections, transactions and charges, oldest first, nothing of others', async () => {
    const s = await billingSetup(api());
    // A: declined first, then paid through POST /v1/collections/{id}/pay: two transactions, two charges
    const a = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline'), meta_data: { k: 'A' } })).body;
    expect(a.status).toBe('incomplete');
    // B: same customer, same moment
    const b = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') })).body;
    expect(b.status).toBe('active');
    t.clock.advanceMs(5 * 60_000);
    const paid = await api().post(`/v1/collections/${a.latest_collection}/pay`, { payment_information: card('approve') });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('paid');
    await api().post(`/v1/subscriptions/${b.id}/pause`, {});
    await api().post(`/v1/subscriptions/${a.id}/update`, { meta_data: { k2: 'v' } });

    const entries = await history(api(), a.id, 3);
    const types = entries.map((e) => e.type);
    expect(types[0]).toBe('subscription.created');
    expect(types).toEqual(
      expect.arrayContaining(['collection.created', 'transaction.created', 'charge.created', 'charge.failed', 'collection.payment_failed', 'charge.paid', 'collection.paid', 'subscription.activated']),
    );
    expect(types.indexOf('collection.paid')).toBeLessThan(types.indexOf('subscription.activated'));
    expect(types[types.length - 1]).toBe('subscription.updated');
    // both attempts are there
    expect(new Set(entries.filter((e) => e.type === 'transaction.created').map((e) => e.data.object.id)).size).toBe(2);
    expect(new Set(entries.filter((e) => e.type === 'charge.created').map((e) => e.data.object.id)).size).toBe(2);
    // each entry is about A, its collection, or a transaction/charge of it
    expect(entries.every(belongsTo(a.id))).toBe(true);
    expect(entries.some((e) => JSON.stringify(e).includes(b.id))).toBe(false);
    expect(entries.some((e) => e.data.object.object === 'transaction')).toBe(true);
    expect(entries.some((e) => e.data.object.object === 'charge')).toBe(true);
    // exactly the feed's entries about A, in the feed's order (oldest first)
    const fromFeed = (await feed(api())).filter(belongsTo(a.id));
    expect(entries.map((e) => e.id)).toEqual(fromFeed.map((e) => e.id));
    expect(entries).toEqual(fromFeed);
    expect(entries.map((e) => e.created)).toEqual([...entries.map((e) => e.created)].sort());

    // B's history has B's events only
    const bEntries = await history(api(), b.id);
    expect(bEntries.every(belongsTo(b.id))).toBe(true);
    expect(bEntries.map((e) => e.type)).toContain('subscription.paused');
    expect(bEntries.some((e) => JSON.stringify(e).includes(a.id))).toBe(false);

    const page = await api().get(`/v1/subscriptions/${a.id}/history?limit=2`);
    expect(page.body).toMatchObject({ object: 'list', url: `/v1/subscriptions/${a.id}/history`, has_more: true });
    expect(page.body.data).toHaveLength(2);

    expectApiError(await api().get('/v1/subscriptions/sub_nope/history'), 404, 'resource_missing', 'id');
    expect((await t.as(otherKey).get(`/v1/subscriptions/${a.id}/history`)).status).toBe(404);
  });
});

describe('GET /v1/subscriptions/{id}?as_of=', () => {
  test('as_of an event id: the subscription as it stood right after that event', async () => {
    const s = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') })).body;
    expect(sub.status).toBe('active');
    const updated = (await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ id: sub.items[0].id, quantity: 3 }] })).body;
    expect(updated.items[0].quantity).toBe(3);

    const entries = await history(api(), sub.id);
    const byType = (type: string) => entries.find((e) => e.type === type)!;

    const atCreated = await asOf(sub.id, byType('subscription.created').id);
    expect(atCreated.status).toBe(200);
    expect(atCreated.body).toMatchObject({ id: sub.id, object: 'subscription', status: 'incomplete', activated_at: null, latest_collection: sub.latest_collection });
    expect(atCreated.body.items[0].quantity).toBe(1);
    expect(atCreated.body).toEqual(byType('subscription.created').data.object);

    // an event of one of its collections cuts at that event's place: paid, not yet activated
    const atPaid = await asOf(sub.id, byType('collection.paid').id);
    expect(atPaid.body.status).toBe('incomplete');
    const atActivated = await asOf(sub.id, byType('subscription.activated').id);
    expect(atActivated.body).toMatchObject({ status: 'active', activated_at: sub.activated_at });
    expect(atActivated.body.items[0].quantity).toBe(1);

    // right after the last event: what GET returns
    const lastId = entries[entries.length - 1].id;
    expect((await asOf(sub.id, lastId)).body).toEqual((await api().get(`/v1/subscriptions/${sub.id}`)).body);
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.items[0].quantity).toBe(3);
  });

  test('as_of a time, with the clock moved between steps', async () => {
    const s = await billingSetup(api());
    const t0 = now();
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') })).body;
    t.clock.advanceMs(3_600_000);
    const t1 = now();
    await api().post(`/v1/subscriptions/${sub.id}/update`, { items: [{ id: sub.items[0].id, quantity: 2 }], meta_data: { step: '1' } });
    t.clock.advanceMs(3_600_000);
    const t2 = now();
    await api().post(`/v1/subscriptions/${sub.id}/pause`, {});
    t.clock.advanceMs(3_600_000);

    const at0 = await asOf(sub.id, t0);
    expect(at0.status).toBe(200);
    expect(at0.body).toMatchObject({ status: 'active', meta_data: {} });
    expect(at0.body.items[0].quantity).toBe(1);
    const justBefore1 = await asOf(sub.id, new Date(Date.parse(t1) - 1).toISOString());
    expect(justBefore1.body.items[0].quantity).toBe(1);
    const at1 = await asOf(sub.id, t1);
    expect(at1.body).toMatchObject({ status: 'active', meta_data: { step: '1' } });
    expect(at1.body.items[0].quantity).toBe(2);
    const at2 = await asOf(sub.id, t2);
    expect(at2.body).toMatchObject({ status: 'paused', paused_at: t2 });
    expect((await asOf(sub.id, now())).body).toEqual((await api().get(`/v1/subscriptions/${sub.id}`)).body);

    // a declined start: incomplete as of its creation, active after it was paid later
    const d = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline') })).body;
    const created = now();
    t.clock.advanceMs(600_000);
    await api().post(`/v1/collections/${d.latest_collection}/pay`, { payment_information: card('approve') });
    expect((await asOf(d.id, created)).body.status).toBe('incomplete');
    expect((await asOf(d.id, now())).body.status).toBe('active');
  });

  test('as_of before creation is 404; a bad as_of is 400; another account cannot look', async () => {
    const s = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') })).body;
    const before = new Date(t.clock.now().getTime() - 1000).toISOString();
    const early = await asOf(sub.id, before);
    expect(early.status).toBe(404);
    expect(early.body.error).toMatchObject({ type: 'invalid_request_error', code: 'resource_missing' });

    // an event that predates the subscription (its customer's creation)
    const customerCreated = (await feed(api(), undefined, `object_id=${s.customer.id}`))[0];
    expect(customerCreated.type).toBe('customer.created');
    expect((await asOf(sub.id, customerCreated.id)).status).toBe(404);

    for (const bad of ['yesterday', '2026-13-45T00:00:00Z', 'evt_00000000000000000000000000000000', '']) {
      expectApiError(await asOf(sub.id, bad), 400, 'parameter_invalid', 'as_of');
    }

    // an event of another account is no event for this one
    const other = t.as(otherKey);
    const o = await billingSetup(other);
    const otherEvent = (await feed(other, undefined, `object_id=${o.customer.id}`))[0];
    expectApiError(await asOf(sub.id, otherEvent.id), 400, 'parameter_invalid', 'as_of');
    // and another account cannot read this subscription at any time
    expect((await other.get(`/v1/subscriptions/${sub.id}?as_of=${encodeURIComponent(now())}`)).status).toBe(404);
    expectApiError(await asOf('sub_nope', now()), 404, 'resource_missing', 'id');
  });
});
