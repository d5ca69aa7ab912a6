import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError, feed, history, lastEventId, plusDays, plusHours } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let checkoutUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  checkoutUrl = t.app.get<Config>(CONFIG).checkoutUrl;
});
afterAll(() => t.close());

const api = () => t.as(key);
const now = () => t.clock.now().toISOString();
const typesOf = (events: Array<{ type: string }>) => events.map((e) => e.type);

/** `later` comes after `earlier` in `types` (both present). */
function expectBefore(types: string[], earlier: string, later: string) {
  expect(types).toContain(earlier);
  expect(types).toContain(later);
  expect(types.indexOf(earlier)).toBeLessThan(types.indexOf(later));
}

describe('collection_method charge', () => {
  test('an approving card: the first collection is paid in the same request, so the response is active with latest_collection paid', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id, quantity: 2 }],
      payment_information: card('approve'),
      meta_data: { crm: 'A-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^sub_/),
      object: 'subscription',
      customer: s.customer.id,
      status: 'active',
      collection_method: 'charge',
      currency: 'COP',
      billing_period: 'month',
      billing_interval: 1,
      latest_collection: expect.stringMatching(/^col_/),
      first_payment_expires_at: null,
      activated_at: now(),
      days_until_due: null,
      trial_end: null,
      schedule_date: null,
      migrated: false,
      meta_data: { crm: 'A-1' },
      is_test: true,
      created_date: '2026-11-23 10:00:00',
      next_renewal_date: '2026-12-23T10:00:00.000Z',
      payment_method: expect.stringMatching(/^pm_/),
    });
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ id: expect.stringMatching(/^si_/), quantity: 2, price: { id: s.monthly.id }, product: { id: s.product.id } });

    const col = await api().get(`/v1/collections/${res.body.latest_collection}`);
    expect(col.status).toBe(200);
    expect(col.body).toMatchObject({
      id: res.body.latest_collection,
      subscription: res.body.id,
      customer: s.customer.id,
      status: 'paid',
      subtotal: '99800.00',
      total: '99800.00',
      currency: 'COP',
      collection_method: 'charge',
      collection_attempts: 1,
      paid_date: now(),
      payment_method_gateway: 'gateway_a',
      payment_method_type: 'card',
      payment_method: res.body.payment_method,
      meta_data: { crm: 'A-1' },
    });
    expect(col.body.items).toEqual([expect.objectContaining({ unit_price: '49900.00', quantity: 2, subtotal: '99800.00', total: '99800.00' })]);

    const charges = (await api().get(`/v1/charges?collection=${col.body.id}`)).body.data;
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ id: expect.stringMatching(/^ch_/), status: 'succeeded' });
    // the one-off card was saved and became the customer's default
    const customer = await api().get(`/v1/customers/${s.customer.id}`);
    expect(customer.body.default_payment_method).toBe(res.body.payment_method);

    // GET returns what the POST returned
    const got = await api().get(`/v1/subscriptions/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);

    // the feed: creation, the attempt, then collection.paid strictly before subscription.activated
    const entries = await history(api(), res.body.id);
    const types = typesOf(entries);
    expect(types.slice(0, 2)).toEqual(['subscription.created', 'collection.created']);
    expectBefore(types, 'collection.created', 'transaction.created');
    expectBefore(types, 'transaction.created', 'charge.created');
    expectBefore(types, 'charge.created', 'charge.paid');
    expectBefore(types, 'charge.paid', 'collection.paid');
    expectBefore(types, 'collection.paid', 'subscription.activated');
    expect(types.filter((x) => x === 'subscription.activated')).toHaveLength(1);
    expect(types.filter((x) => x === 'collection.paid')).toHaveLength(1);
    // the same order in the account's feed
    const all = typesOf((await feed(api())).filter((e) => e.data.object.id === res.body.id || e.data.object.subscription === res.body.id));
    expect(all).toEqual(types);
    const created = entries.find((e) => e.type === 'subscription.created')!;
    expect(created.data.object).toMatchObject({ id: res.body.id, status: 'incomplete', latest_collection: res.body.latest_collection, meta_data: { crm: 'A-1' } });
    const activated = entries.find((e) => e.type === 'subscription.activated')!;
    expect(activated.data.object).toMatchObject({ id: res.body.id, status: 'active' });
  });

  test('a declining card: incomplete, the collection pending after one attempt, first_payment_expires_at = now + 23 h', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'incomplete',
      latest_collection: expect.stringMatching(/^col_/),
      first_payment_expires_at: plusHours(now(), 23),
      activated_at: null,
      payment_method: null,
      payment_information: { gateway: 'gateway_a', type: 'card' },
    });
    // never card data in the subscription
    expect(JSON.stringify(res.body)).not.toContain('4000000000000002');

    const col = (await api().get(`/v1/collections/${res.body.latest_collection}`)).body;
    expect(col).toMatchObject({ status: 'pending', collection_attempts: 1, total: '49900.00', paid_date: null });

    const types = typesOf(await history(api(), res.body.id));
    expect(types).toContain('collection.payment_failed');
    expect(types).not.toContain('collection.paid');
    expect(types).not.toContain('subscription.activated');
    expect(types.slice(0, 2)).toEqual(['subscription.created', 'collection.created']);

    // a declined card is not saved
    expect((await api().get(`/v1/customers/${s.customer.id}`)).body.default_payment_method).toBeNull();
    expect((await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data).toEqual([]);
  });

  test('pse: incomplete with the collection processing and redirect data; settling it activates the subscription', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'incomplete', payment_information: { gateway: 'gateway_a', type: 'pse' }, payment_method: null });
    const colId = res.body.latest_collection;
    const col = (await api().get(`/v1/collections/${colId}`)).body;
    expect(col.status).toBe('processing');
    expect(col.additional_data).toMatchObject({ redirect_url: expect.stringMatching(/^https?:\/\//) });

    const settled = await api().post(`/v1/test_helpers/collections/${colId}/settle`);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ id: colId, status: 'paid' });

    const sub = (await api().get(`/v1/subscriptions/${res.body.id}`)).body;
    expect(sub).toMatchObject({ status: 'active', activated_at: now(), first_payment_expires_at: null, payment_method: null });
    const types = typesOf(await history(api(), res.body.id));
    expectBefore(types, 'collection.paid', 'subscription.activated');
    expect(types[types.length - 1]).toBe('subscription.activated');
  });
});

describe('discounts at creation', () => {
  test('the first collection is cycle 1: a discount limited to one collection applies to it, as does one without a limit', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      payment_information: card('approve'),
      discounts: [
        { code: 'FIRST', percent: '50', duration_in_collections: 1 },
        { code: 'FLAT', amount: '900' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('active');
    expect(res.body.discounts.map((d: any) => [d.code, d.duration_in_collections])).toEqual([
      ['FIRST', 1],
      ['FLAT', null],
    ]);
    const col = (await api().get(`/v1/collections/${res.body.latest_collection}`)).body;
    // 49900 − 50 % of 49900 (24950) − 900
    expect(col).toMatchObject({ status: 'paid', subtotal: '49900.00', total: '24050.00' });
    expect(col.discounts.map((d: any) => d.code)).toEqual(['FIRST', 'FLAT']);
    expect(col.discounts.map((d: any) => d.id)).toEqual(res.body.discounts.map((d: any) => d.id));
    const charges = (await api().get(`/v1/charges?collection=${col.id}`)).body.data;
    expect(charges.map((c: any) => c.amount)).toEqual(['24050.00']);
  });
});

describe('collection_method collect', () => {
  test('active at once; the collection is pending, sent, with its hosted page and due date; the customer pays it', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', collection_method: 'collect', days_until_due: 5, payment_method: null, activated_at: now() });
    const colId = res.body.latest_collection;
    const col = (await api().get(`/v1/collections/${colId}`)).body;
    expect(col).toMatchObject({
      status: 'pending',
      collection_method: 'collect',
      checkout_url: `${checkoutUrl}/col/${colId}`,
      // Made on Nov 23 in Bogotá + 5 days: due Nov 28, until its end there.
      due_date: '2026-11-29T04:59:59.999Z',
      total: '49900.00',
      collection_attempts: 0,
    });
    expect(typesOf(await history(api(), res.body.id))).toEqual(['subscription.created', 'collection.created', 'collection.sent']);

    const paid = await api().post(`/v1/test_helpers/collections/${colId}/customer_payment`, {});
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ id: colId, status: 'paid' });
    // without switch_to_charge the subscription stays manual
    const sub = (await api().get(`/v1/subscriptions/${res.body.id}`)).body;
    expect(sub).toMatchObject({ status: 'active', collection_method: 'collect', payment_method: null, days_until_due: 5 });
    const types = typesOf(await history(api(), res.body.id));
    expect(types).toContain('collection.paid');
    expect(types).not.toContain('subscription.activated');
  });

  test('switch_to_charge: paying with a card turns the subscription to charge with the saved method', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      collection_method: 'collect',
      days_until_due: 3,
      switch_to_charge: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', collection_method: 'collect', switch_to_charge: true });
    const paid = await api().post(`/v1/test_helpers/collections/${res.body.latest_collection}/customer_payment`, { payment_information: card('approve') });
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe('paid');
    const methods = (await api().get(`/v1/customers/${s.customer.id}/payment_methods`)).body.data;
    expect(methods).toHaveLength(1);
    const sub = (await api().get(`/v1/subscriptions/${res.body.id}`)).body;
    expect(sub).toMatchObject({ status: 'active', collection_method: 'charge', payment_method: methods[0].id, days_until_due: null });
    const last = (await history(api(), res.body.id)).filter((e) => e.type === 'subscription.updated').pop()!;
    expect(last.data.object).toMatchObject({ collection_method: 'charge', payment_method: methods[0].id });
  });
});

describe('trial', () => {
  test('trialing: the first collection bills the recurring item at 0 and charges the one-time item', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }, { price: s.setupFee.id }],
      trial_days: 14,
      payment_information: card('approve'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'trialing',
      trial_days: 14,
      trial_end: plusDays(now(), 14),
      next_renewal_date: plusDays(now(), 14),
      activated_at: null,
      latest_collection: expect.stringMatching(/^col_/),
    });
    const col = (await api().get(`/v1/collections/${res.body.latest_collection}`)).body;
    expect(col).toMatchObject({ status: 'paid', subtotal: '10000.00', total: '10000.00' });
    const recurring = col.items.find((i: any) => i.price.id === s.monthly.id);
    const oneTime = col.items.find((i: any) => i.price.id === s.setupFee.id);
    expect(recurring).toMatchObject({ unit_price: '0.00', total: '0.00' });
    expect(oneTime).toMatchObject({ unit_price: '10000.00', total: '10000.00' });
    // paying the trial's collection does not activate
    const types = typesOf(await history(api(), res.body.id));
    expect(types).toContain('collection.paid');
    expect(types).not.toContain('subscription.activated');
    expect((await api().get(`/v1/subscriptions/${res.body.id}`)).body.status).toBe('trialing');
  });

  test('a trial with only recurring items: the zero collection is paid at once, no charge, the subscription stays trialing', async () => {
    const s = await billingSetup(api());
    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], trial_days: 7, payment_information: card('approve') });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('trialing');
    const col = (await api().get(`/v1/collections/${res.body.latest_collection}`)).body;
    expect(col).toMatchObject({ status: 'paid', total: '0.00', collection_attempts: 0 });
    expect((await api().get(`/v1/charges?collection=${col.id}`)).body.data).toEqual([]);
    // Nothing is charged, but the card given is saved for the first real collection (payment_method_saved).
    const types = typesOf(await history(api(), res.body.id));
    expect(types).toEqual(['subscription.created', 'collection.created', 'collection.paid', 'subscription.updated']);
    expect(res.body).toMatchObject({ status: 'trialing', payment_method: expect.stringMatching(/^pm_/), payment_information: null });
  });
});

describe('schedule_date', () => {
  test('scheduled: subscription.scheduled, no collection until the start date', async () => {
    const s = await billingSetup(api());
    const start = plusDays(now(), 10);
    const res = await api().post('/v1/subscriptions', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      collection_method: 'collect',
      days_until_due: 5,
      schedule_date: start,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'scheduled', schedule_date: start, latest_collection: null, next_renewal_date: start, activated_at: null });
    expect(typesOf(await history(api(), res.body.id))).toEqual(['subscription.scheduled']);
    expect((await api().get(`/v1/collections?subscription=${res.body.id}`)).body.data).toEqual([]);
  });

  test('scheduled with charge uses the customer default method, and charges nothing now', async () => {
    const s = await billingSetup(api());
    const pm = await api().post('/v1/payment_methods/migrate', {
      customer: s.customer.id,
      gateway: 'gateway_a',
      type: 'card',
      token: 'simtok_approve_abc123',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    });
    expect(pm.status).toBe(200);
    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], schedule_date: plusDays(now(), 3) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'scheduled', collection_method: 'charge', payment_method: pm.body.id, latest_collection: null });
    expect((await api().get(`/v1/collections?subscription=${res.body.id}`)).body.data).toEqual([]);
    expect((await api().get(`/v1/charges?customer=${s.customer.id}`)).body.data).toEqual([]);
  });
});

describe("the customer's default payment method", () => {
  test('a migrated token becomes the default and pays the first collection when neither payment_method nor payment_information is sent', async () => {
    const s = await billingSetup(api());
    const pm = await api().post('/v1/payment_methods/migrate', {
      customer: s.customer.id,
      gateway: 'gateway_a',
      type: 'card',
      token: 'simtok_approve_abc123',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    });
    expect(pm.status).toBe(200);
    expect((await api().get(`/v1/customers/${s.customer.id}`)).body.default_payment_method).toBe(pm.body.id);

    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'active', payment_method: pm.body.id, payment_information: null });
    const col = (await api().get(`/v1/collections/${res.body.latest_collection}`)).body;
    expect(col).toMatchObject({ status: 'paid', payment_method: pm.body.id, collection_attempts: 1 });
  });

  test('the card saved by a paid collection is the default for the next subscription', async () => {
    const s = await billingSetup(api());
    const first = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') });
    expect(first.body.status).toBe('active');
    const second = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }] });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'active', payment_method: first.body.payment_method });
    expect((await api().get(`/v1/collections/${second.body.latest_collection}`)).body).toMatchObject({ status: 'paid', payment_method: first.body.payment_method });
  });

  test('an explicit stored payment_method is used', async () => {
    const s = await billingSetup(api());
    const pm = (
      await api().post('/v1/payment_methods/migrate', {
        customer: s.customer.id,
        gateway: 'gateway_b',
        type: 'card',
        token: 'simtok_decline_abc123',
        card: { brand: 'visa', last4: '0002', exp_month: 12, exp_year: 2030 },
      })
    ).body;
    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_method: pm.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'incomplete', payment_method: pm.id });
    expect((await api().get(`/v1/collections/${res.body.latest_collection}`)).body).toMatchObject({ status: 'pending', collection_attempts: 1 });
  });

  test('no default and nothing sent: 400 payment_method_required naming payment_method, nothing written', async () => {
    const s = await billingSetup(api());
    const before = await lastEventId(api());
    const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }] });
    expectApiError(res, 400, 'payment_method_required', 'payment_method', /no default payment method/);
    expect((await api().get(`/v1/subscriptions?customer=${s.customer.id}`)).body.data).toEqual([]);
    // a later write has been projected, so anything the rejection wrote would be in the feed by now
    await api().post('/v1/products', { name: 'sentinel' });
    expect(typesOf(await feed(api(), before))).toEqual(['product.created']);
  });
});

describe('POST /v1/subscriptions/migrate', () => {
  test('honours next_renewal_date: active, no collection, no charge, migrated', async () => {
    const s = await billingSetup(api());
    const pm = (
      await api().post('/v1/payment_methods/migrate', {
        customer: s.customer.id,
        gateway: 'gateway_a',
        type: 'card',
        token: 'simtok_approve_abc123',
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
      })
    ).body;
    const before = await lastEventId(api());
    const renewal = '2026-12-15T00:00:00.000Z';
    const res = await api().post('/v1/subscriptions/migrate', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      next_renewal_date: renewal,
      meta_data: { legacy_id: 'L-77' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'active',
      migrated: true,
      latest_collection: null,
      next_renewal_date: renewal,
      payment_method: pm.id,
      collection_method: 'charge',
      meta_data: { legacy_id: 'L-77' },
    });
    expect((await api().get(`/v1/collections?subscription=${res.body.id}`)).body.data).toEqual([]);
    expect((await api().get(`/v1/charges?customer=${s.customer.id}`)).body.data).toEqual([]);
    expect(typesOf(await feed(api(), before))).toEqual(['subscription.created']);
  });

  test('collect subscriptions migrate too; next_renewal_date is required and must be in the future', async () => {
    const s = await billingSetup(api());
    const ok = await api().post('/v1/subscriptions/migrate', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      collection_method: 'collect',
      days_until_due: 10,
      next_renewal_date: '2027-01-01T00:00:00.000Z',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'active', migrated: true, latest_collection: null, next_renewal_date: '2027-01-01T00:00:00.000Z' });

    const missing = await api().post('/v1/subscriptions/migrate', { customer: s.customer.id, items: [{ price: s.monthly.id }], collection_method: 'collect', days_until_due: 10 });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('next_renewal_date');
    const past = await api().post('/v1/subscriptions/migrate', {
      customer: s.customer.id,
      items: [{ price: s.monthly.id }],
      collection_method: 'collect',
      days_until_due: 10,
      next_renewal_date: '2026-01-01T00:00:00.000Z',
    });
    expectApiError(past, 400, 'parameter_invalid', 'next_renewal_date');
    expect((await api().get(`/v1/subscriptions?customer=${s.customer.id}`)).body.data.map((x: any) => x.id)).toEqual([ok.body.id]);
  });
});
