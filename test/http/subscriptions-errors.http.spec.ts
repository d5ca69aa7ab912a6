import { billingSetup, card } from '../support/billing-fixtures.js';
import { expectApiError, feed, lastEventId, plusDays } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let key: string;
let s: Awaited<ReturnType<typeof billingSetup>>;
let yearly: { id: string };
let quarterly: { id: string };
let storedPm: string;

const api = () => t.as(key);
const now = () => t.clock.now().toISOString();

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  s = await billingSetup(api());
  yearly = (await api().post('/v1/prices', { product_id: s.product.id, type: 'recurring', billing_period: 'year', billing_interval: 1, unit_price: '499000' })).body;
  quarterly = (await api().post('/v1/prices', { product_id: s.product.id, type: 'recurring', billing_period: 'month', billing_interval: 3, unit_price: '139000' })).body;
  // a stored method (it is also the customer's default: migrating the first one makes it so)
  storedPm = (
    await api().post('/v1/payment_methods/migrate', {
      customer: s.customer.id,
      gateway: 'gateway_a',
      type: 'card',
      token: 'simtok_approve_abc123',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
    })
  ).body.id;
  expect(storedPm).toMatch(/^pm_/);
});
afterAll(() => t.close());

/**
 * Sends `body` to POST /v1/subscriptions and checks the rejection wrote nothing: no subscription of
 * the customer, no collection, and, once a later write has been projected, no event but that write's.
 */
async function rejected(body: Record<string, unknown>, client = api(), customerId = s.customer.id, path = '/v1/subscriptions') {
  const before = await lastEventId(client);
  const res = await client.post(path, body);
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.body.error).toEqual({ type: expect.any(String), code: expect.any(String), message: expect.any(String), param: res.body.error.param });
  await client.post('/v1/products', { name: 'sentinel' });
  expect((await feed(client, before)).map((e) => e.type)).toEqual(['product.created']);
  expect((await client.get(`/v1/subscriptions?customer=${customerId}`)).body.data).toEqual([]);
  expect((await client.get(`/v1/collections?customer=${customerId}`)).body.data).toEqual([]);
  return res;
}

const base = () => ({ customer: s.customer.id, items: [{ price: s.monthly.id }] });

describe("the spec's error table", () => {
  test('days_until_due with collection_method charge', async () => {
    const res = await rejected({ ...base(), collection_method: 'charge', days_until_due: 5, payment_information: card() });
    expectApiError(res, 400, 'parameter_invalid', 'days_until_due', 'days_until_due is only allowed for collection_method charge');
    // charge is the default collection_method
    const implicit = await rejected({ ...base(), days_until_due: 5, payment_method: storedPm });
    expectApiError(implicit, 400, 'parameter_invalid', 'days_until_due', 'days_until_due is only allowed for collection_method charge');
  });

  test('days_until_due missing with collection_method collect', async () => {
    const res = await rejected({ ...base(), collection_method: 'collect' });
    expectApiError(res, 400, 'parameter_missing', 'days_until_due', 'days_until_due is required with collection_method collect');
  });

  test('payment_method and payment_information both sent', async () => {
    const res = await rejected({ ...base(), payment_method: storedPm, payment_information: card() });
    expectApiError(res, 400, 'parameter_invalid', 'payment_information', 'payment_method and payment_information are mutually exclusive; send only one');
  });

  test.each([
    ['month/1 with year/1', () => yearly.id],
    ['month/1 with month/3', () => quarterly.id],
  ])('recurring prices with different frequencies (%s)', async (_label, other) => {
    const res = await rejected({ customer: s.customer.id, items: [{ price: s.monthly.id }, { price: other() }], payment_method: storedPm });
    expectApiError(res, 400, 'parameter_invalid', 'items', 'All prices must have the same frequency (billing_period and billing_interval)');
  });

  test('first_payment_invoicing create with charge', async () => {
    const res = await rejected({ ...base(), first_payment_invoicing: 'create', payment_method: storedPm });
    expectApiError(res, 400, 'parameter_invalid', 'first_payment_invoicing', 'first_payment_invoicing create is not allowed with collection_method charge; only after is valid');
  });

  test('payment_information with schedule_date', async () => {
    const res = await rejected({ ...base(), payment_information: card(), schedule_date: plusDays(now(), 5) });
    expectApiError(res, 400, 'parameter_invalid', 'payment_information', 'payment_information is not allowed with schedule_date');
  });

  test('trial_days with schedule_date', async () => {
    const res = await rejected({ ...base(), collection_method: 'collect', days_until_due: 5, trial_days: 7, schedule_date: plusDays(now(), 5) });
    expectApiError(res, 400, 'parameter_invalid', 'trial_days', 'trial_days cannot be combined with schedule_date');
  });

  test('a meta_data value over 255 characters names meta_data[key]', async () => {
    const res = await rejected({ ...base(), payment_method: storedPm, meta_data: { ok: 'x', note: 'y'.repeat(256) } });
    expectApiError(res, 400, 'parameter_invalid', 'meta_data[note]', /255/);
    // 255 is accepted (positive control; written, so checked after the rejection above)
    const other = (await api().post('/v1/customers', { email: `meta.${Date.now()}@example.com` })).body;
    const ok = await api().post('/v1/subscriptions', { ...base(), customer: other.id, collection_method: 'collect', days_until_due: 1, meta_data: { note: 'y'.repeat(255) } });
    expect(ok.status).toBe(200);
    expect(ok.body.meta_data.note).toHaveLength(255);
  });

  test('a gateway not configured on the account', async () => {
    const other = await t.account('No gateway_c');
    const client = t.as(other.test_key);
    const o = await billingSetup(client);
    const pmOnC = (
      await client.post('/v1/payment_methods/migrate', {
        customer: o.customer.id,
        gateway: 'gateway_c',
        type: 'card',
        token: 'simtok_approve_abc123',
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
      })
    ).body.id;
    expect(pmOnC).toMatch(/^pm_/);
    const removed = await client.delete('/v1/account/gateways/gateway_c');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: 'gateway_c', object: 'gateway', deleted: true });

    const oneOff = await rejected({ customer: o.customer.id, items: [{ price: o.monthly.id }], payment_information: card('approve', 'gateway_c') }, client, o.customer.id);
    expectApiError(oneOff, 400, 'gateway_not_configured', 'payment_information[gateway]', 'The gateway gateway_c is not configured in the account');

    const stored = await rejected({ customer: o.customer.id, items: [{ price: o.monthly.id }], payment_method: pmOnC }, client, o.customer.id);
    expect(stored.body.error).toMatchObject({ code: 'gateway_not_configured', param: 'payment_method', message: 'The gateway gateway_c is not configured in the account' });

    // the customer's default (the same method) is on gateway_c too
    const fallback = await rejected({ customer: o.customer.id, items: [{ price: o.monthly.id }] }, client, o.customer.id);
    expect(fallback.body.error).toMatchObject({ code: 'gateway_not_configured', message: 'The gateway gateway_c is not configured in the account' });

    // the other gateways still work
    const ok = await client.post('/v1/subscriptions', { customer: o.customer.id, items: [{ price: o.monthly.id }], payment_information: card('approve', 'gateway_d') });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('active');
  });
});

describe('other rejections write nothing either', () => {
  test.each<[string, () => Record<string, unknown>, number, string, string]>([
    ['an unknown customer', () => ({ customer: 'cus_nope', items: [{ price: s.monthly.id }], payment_method: storedPm }), 404, 'resource_missing', 'customer'],
    ['an unknown price', () => ({ ...base(), items: [{ price: 'price_nope' }], payment_method: storedPm }), 404, 'resource_missing', 'items[0][price]'],
    ['only one-time prices', () => ({ ...base(), items: [{ price: s.setupFee.id }], payment_method: storedPm }), 400, 'parameter_invalid', 'items'],
    ['a payment_method of another customer', () => ({ ...base(), payment_method: 'pm_doesnotexist' }), 400, 'parameter_invalid', 'payment_method'],
    ['payment_method with collect', () => ({ ...base(), collection_method: 'collect', days_until_due: 3, payment_method: storedPm }), 400, 'parameter_invalid', 'payment_method'],
    ['payment_information with collect', () => ({ ...base(), collection_method: 'collect', days_until_due: 3, payment_information: card() }), 400, 'parameter_invalid', 'payment_information'],
    ['switch_to_charge with charge', () => ({ ...base(), payment_method: storedPm, switch_to_charge: true }), 400, 'parameter_invalid', 'switch_to_charge'],
    ['a schedule_date in the past', () => ({ ...base(), payment_method: storedPm, schedule_date: '2026-01-01T00:00:00.000Z' }), 400, 'parameter_invalid', 'schedule_date'],
    ['next_renewal_date outside migration', () => ({ ...base(), payment_method: storedPm, next_renewal_date: '2027-01-01T00:00:00.000Z' }), 400, 'parameter_unknown', 'next_renewal_date'],
    ['a gateway without the method', () => ({ ...base(), payment_information: { gateway: 'gateway_i', type: 'pse', bank_code: '1007' } }), 400, 'parameter_invalid', 'payment_information[type]'],
    ['pse without bank_code', () => ({ ...base(), payment_information: { gateway: 'gateway_a', type: 'pse' } }), 400, 'parameter_missing', 'payment_information[bank_code]'],
    ['an invalid card number', () => ({ ...base(), payment_information: { gateway: 'gateway_a', type: 'card', card: { number: '4242424242424241', exp_month: 1, exp_year: 2030 } } }), 400, 'parameter_invalid', 'payment_information[card][number]'],
    ['an unknown field', () => ({ ...base(), payment_method: storedPm, colour: 'blue' }), 400, 'parameter_unknown', 'colour'],
  ])('%s', async (_label, body, status, code, param) => {
    const res = await rejected(body());
    expectApiError(res, status, code, param);
  });
});
