import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf, count, decliningMethod, getCol, getSub, historyTypes, subscriptionTypes } from '../support/lifecycle.js';

/** Issue 4, §2–3: how subscriptions start on a test clock: trials ending, scheduled starts, the first-payment window. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const TRIAL_END = '2026-02-14T10:00:00.000Z';

/** An approving card imported for the customer (a migrated `simtok_approve_…` token). */
async function approvingMethod(customerId: string) {
  const res = await api().post('/v1/payment_methods/migrate', {
    customer: customerId,
    gateway: 'gateway_a',
    type: 'card',
    token: `simtok_approve_x${Math.random().toString(36).slice(2, 10)}`,
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
  });
  expect(res.status).toBe(200);
  return res.body as { id: string };
}

describe('a trial (trial_days: 14)', () => {
  async function trial(method: 'approve' | 'decline') {
    const s = await billingSetup(api());
    const { clock, customer } = await clockAndCustomer(api(), START);
    const pm = method === 'approve' ? await approvingMethod(customer.id) : await decliningMethod(api(), customer.id);
    const res = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_method: pm.id, trial_days: 14 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'trialing', trial_end: TRIAL_END, next_renewal_date: TRIAL_END, collections_count: 0, payment_method: pm.id });
    const trialCol = await getCol(api(), res.body.latest_collection);
    expect(trialCol).toMatchObject({ status: 'paid', total: '0.00', billing_reason: 'subscription_trial' });
    return { clock, sub: res.body, trialCol };
  }

  test('trialing until trial end; then the first real collection is charged and the subscription becomes active', async () => {
    const { clock, sub, trialCol } = await trial('approve');
    await advance(api(), clock.id, '2026-02-14T09:59:59.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'trialing', latest_collection: trialCol.id });
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);

    await advance(api(), clock.id, TRIAL_END);
    const now = await getSub(api(), sub.id);
    expect(now).toMatchObject({
      status: 'active',
      activated_at: TRIAL_END,
      collections_count: 1,
      current_period_start: TRIAL_END,
      next_renewal_date: '2026-03-14T10:00:00.000Z',
    });
    const first = await getCol(api(), now.latest_collection);
    expect(first).toMatchObject({ status: 'paid', total: '49900.00', paid_date: TRIAL_END, created_date: '2026-02-14 10:00:00', collection_attempts: 1 });
    const types = await historyTypes(api(), sub.id);
    expect(count(types, 'subscription.activated')).toBe(1);
    const tail = types.slice(types.indexOf('subscription.renewed'));
    expect(tail.filter((t) => ['subscription.renewed', 'collection.created', 'collection.paid', 'subscription.activated'].includes(t))).toEqual([
      'subscription.renewed',
      'collection.created',
      'collection.paid',
      'subscription.activated',
    ]);

    // And then it renews monthly from the trial's end.
    await advance(api(), clock.id, '2026-03-14T10:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-04-14T10:00:00.000Z' });
    expect((await collectionsOf(api(), sub.id)).map((c) => c.status)).toEqual(['paid', 'paid', 'paid']);
  });

  test('with a declining card, trial end leaves the subscription past_due (and dunning runs)', async () => {
    const { clock, sub } = await trial('decline');
    await advance(api(), clock.id, TRIAL_END);
    const now = await getSub(api(), sub.id);
    expect(now).toMatchObject({ status: 'past_due', activated_at: null, collections_count: 1 });
    expect(await getCol(api(), now.latest_collection)).toMatchObject({ status: 'past_due', collection_attempts: 1, next_collection_attempt_date: '2026-02-15T10:00:00.000Z' });
    expect(await subscriptionTypes(api(), sub.id)).toEqual(['subscription.created', 'subscription.renewed', 'subscription.past_due']);
    await advance(api(), clock.id, '2026-02-21T10:00:00.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('unpaid');
    expect(await subscriptionTypes(api(), sub.id)).toEqual(['subscription.created', 'subscription.renewed', 'subscription.past_due', 'subscription.unpaid']);
  });

  test('a trial started with one-off card data charges that card at trial end', async () => {
    const s = await billingSetup(api());
    const { clock, customer } = await clockAndCustomer(api(), START);
    const res = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card(), trial_days: 14 });
    expect(res.status).toBe(200);
    // Nothing is charged during the trial, but the card is saved and becomes the subscription's method.
    expect(res.body).toMatchObject({ status: 'trialing', payment_method: expect.stringMatching(/^pm_/), payment_information: null });
    expect((await api().get(`/v1/customers/${customer.id}`)).body.default_payment_method).toBe(res.body.payment_method);
    await advance(api(), clock.id, TRIAL_END);
    const now = await getSub(api(), res.body.id);
    expect(now.status).toBe('active');
    expect(await getCol(api(), now.latest_collection)).toMatchObject({ status: 'paid', total: '49900.00', payment_method: res.body.payment_method });
  });
});

describe('a scheduled start (schedule_date)', () => {
  const SCHEDULED = '2026-02-10T10:00:00.000Z';

  async function scheduled(body: Record<string, unknown>, customerId?: string) {
    const s = await billingSetup(api());
    const cc = customerId ? null : await clockAndCustomer(api(), START);
    const res = await api().post('/v1/subscriptions', { customer: customerId ?? cc!.customer.id, items: [{ price: s.monthly.id }], schedule_date: SCHEDULED, ...body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'scheduled', latest_collection: null, next_renewal_date: SCHEDULED, schedule_date: SCHEDULED });
    return res.body;
  }

  test('charge, approved: scheduled until the date, then subscription.started, the first collection paid, active', async () => {
    const { clock, customer } = await clockAndCustomer(api(), START);
    const pm = await approvingMethod(customer.id);
    const s = await scheduled({ payment_method: pm.id }, customer.id);
    await advance(api(), clock.id, '2026-02-10T09:59:59.000Z');
    expect(await getSub(api(), s.id)).toMatchObject({ status: 'scheduled', latest_collection: null });
    expect(await collectionsOf(api(), s.id)).toEqual([]);

    await advance(api(), clock.id, SCHEDULED);
    const now = await getSub(api(), s.id);
    expect(now).toMatchObject({ status: 'active', activated_at: SCHEDULED, current_period_start: SCHEDULED, next_renewal_date: '2026-03-10T10:00:00.000Z', collections_count: 1 });
    const cols = await collectionsOf(api(), s.id);
    expect(cols).toHaveLength(1);
    expect(cols[0]).toMatchObject({ id: now.latest_collection, status: 'paid', total: '49900.00', created_date: '2026-02-10 10:00:00', paid_date: SCHEDULED });
    expect(await subscriptionTypes(api(), s.id)).toEqual(['subscription.scheduled', 'subscription.started', 'subscription.activated']);
    const types = await historyTypes(api(), s.id);
    expect(types.indexOf('subscription.started')).toBeLessThan(types.indexOf('collection.created'));
    expect(types.indexOf('collection.paid')).toBeLessThan(types.indexOf('subscription.activated'));

    await advance(api(), clock.id, '2026-03-10T10:00:00.000Z');
    expect(await getSub(api(), s.id)).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-04-10T10:00:00.000Z' });
  });

  test('charge, declined: incomplete at the date, then expired 23 h later with its collection voided', async () => {
    const { clock, customer } = await clockAndCustomer(api(), START);
    const pm = await decliningMethod(api(), customer.id);
    const s = await scheduled({ payment_method: pm.id }, customer.id);
    await advance(api(), clock.id, SCHEDULED);
    const now = await getSub(api(), s.id);
    expect(now).toMatchObject({ status: 'incomplete', first_payment_expires_at: '2026-02-11T09:00:00.000Z' });
    expect(await getCol(api(), now.latest_collection)).toMatchObject({ status: 'pending', collection_attempts: 1 });

    await advance(api(), clock.id, '2026-02-11T08:59:59.000Z');
    expect((await getSub(api(), s.id)).status).toBe('incomplete');
    await advance(api(), clock.id, '2026-02-11T09:00:00.000Z');
    expect(await getSub(api(), s.id)).toMatchObject({ status: 'expired', expired_at: '2026-02-11T09:00:00.000Z' });
    expect(await getCol(api(), now.latest_collection)).toMatchObject({ status: 'voided', voided_at_date: '2026-02-11T09:00:00.000Z' });
    expect(await subscriptionTypes(api(), s.id)).toEqual(['subscription.scheduled', 'subscription.started', 'subscription.expired']);
    const types = await historyTypes(api(), s.id);
    expect(types.slice(-2)).toEqual(['subscription.expired', 'collection.voided']);
    // Nothing more, ever.
    await advance(api(), clock.id, '2026-06-01T00:00:00.000Z');
    expect(await historyTypes(api(), s.id)).toEqual(types);
    expect(await collectionsOf(api(), s.id)).toHaveLength(1);
  });

  test('charge, declined then paid inside the window: active, no expiry', async () => {
    const { clock, customer } = await clockAndCustomer(api(), START);
    const pm = await decliningMethod(api(), customer.id);
    const s = await scheduled({ payment_method: pm.id }, customer.id);
    await advance(api(), clock.id, '2026-02-10T20:00:00.000Z');
    const col = (await getSub(api(), s.id)).latest_collection;
    const paid = await api().post(`/v1/collections/${col}/pay`, { payment_information: card() });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', paid_date: '2026-02-10T20:00:00.000Z' });
    expect(await getSub(api(), s.id)).toMatchObject({ status: 'active', activated_at: '2026-02-10T20:00:00.000Z', first_payment_expires_at: null });
    await advance(api(), clock.id, '2026-02-12T00:00:00.000Z');
    expect((await getSub(api(), s.id)).status).toBe('active');
    expect((await getCol(api(), col)).status).toBe('paid');
  });

  test('collect: active at the date with its collection sent, due days_until_due later', async () => {
    const { clock, customer } = await clockAndCustomer(api(), START);
    const s = await scheduled({ collection_method: 'collect', days_until_due: 5 }, customer.id);
    await advance(api(), clock.id, SCHEDULED);
    const now = await getSub(api(), s.id);
    expect(now).toMatchObject({ status: 'active', activated_at: SCHEDULED, current_period_start: SCHEDULED, next_renewal_date: '2026-03-10T10:00:00.000Z' });
    expect(await getCol(api(), now.latest_collection)).toMatchObject({
      status: 'pending',
      collection_method: 'collect',
      // Started Feb 10 in Bogotá + 5 days: due Feb 15, until its end there.
      due_date: '2026-02-16T04:59:59.999Z',
      created_date: '2026-02-10 10:00:00',
      collection_attempts: 0,
    });
    const types = await historyTypes(api(), s.id);
    expect(types).toEqual(['subscription.scheduled', 'subscription.started', 'collection.created', 'collection.sent']);
  });
});

test('a trial whose first real collection went past due, paid later: subscription.activated', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const pm = await decliningMethod(api(), customer.id);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_method: pm.id, trial_days: 14 })).body;
  await advance(api(), clock.id, '2026-02-16T00:00:00.000Z');
  const past = await getSub(api(), sub.id);
  expect(past.status).toBe('past_due');
  const paid = await api().post(`/v1/collections/${past.latest_collection}/pay`, { payment_information: card() });
  expect(paid.body.status).toBe('paid');
  const now = await getSub(api(), sub.id);
  expect(now.status).toBe('active');
  // It was never active: this payment activates it.
  expect(now.activated_at).toBe('2026-02-16T00:00:00.000Z');
  expect(await subscriptionTypes(api(), sub.id)).toEqual(['subscription.created', 'subscription.renewed', 'subscription.past_due', 'subscription.activated']);
  expect(await getCol(api(), now.latest_collection)).toMatchObject({ status: 'paid', paid_date: '2026-02-16T00:00:00.000Z' });
});
