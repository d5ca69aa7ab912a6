import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';

let t: TestApp;
let key: string;
let accountId: string;
beforeAll(async () => {
  t = await startTestApp({ now: new Date('2026-01-31T10:00:00.000Z') });
  const account = await t.account();
  key = account.test_key;
  accountId = account.id;
});
afterAll(() => t.close());

const api = () => t.as(key);

test('a charge subscription renews at next_renewal_date, keeping the anchor day across February', async () => {
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  expect(sub.next_renewal_date).toBe('2026-02-28T10:00:00.000Z');
  expect((await t.runDue()).ran).toBe(0);
  t.clock.set(new Date('2026-02-28T10:00:00.000Z'));
  const run = await t.runDue();
  expect(run.ran).toBeGreaterThanOrEqual(1);
  const renewed = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(renewed).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-03-31T10:00:00.000Z', current_period_start: '2026-02-28T10:00:00.000Z' });
  const col = (await api().get(`/v1/collections/${renewed.latest_collection}`)).body;
  expect(col).toMatchObject({ status: 'paid', total: '49900.00', billing_reason: 'subscription_cycle', subscription: sub.id });
  // Nothing more is due; running again does nothing.
  expect((await t.runDue()).ran).toBe(0);
});

test('a renewal declined: past_due, retries on the dunning schedule, then unpaid and uncollectible', async () => {
  t.clock.set(new Date('2026-01-31T10:00:00.000Z'));
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub.status).toBe('active');
  // The saved card starts declining (swap the subscription to a migrated declining token).
  const declining = (await api().post('/v1/payment_methods/migrate', { customer: s.customer.id, gateway: 'gateway_a', type: 'card', token: 'simtok_decline_x1', card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 } })).body;
  expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id })).status).toBe(200);

  t.clock.set(new Date('2026-02-28T10:00:00.000Z'));
  await t.runDue();
  let now = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(now.status).toBe('past_due');
  let col = (await api().get(`/v1/collections/${now.latest_collection}`)).body;
  expect(col).toMatchObject({ status: 'past_due', collection_attempts: 1, dunning_step: 0, next_collection_attempt_date: '2026-03-01T10:00:00.000Z' });

  for (const [day, attempts, next] of [
    ['2026-03-01T10:00:00.000Z', 2, '2026-03-03T10:00:00.000Z'],
    ['2026-03-03T10:00:00.000Z', 3, '2026-03-05T10:00:00.000Z'],
    ['2026-03-05T10:00:00.000Z', 4, '2026-03-07T10:00:00.000Z'],
  ] as const) {
    t.clock.set(new Date(day));
    await t.runDue();
    col = (await api().get(`/v1/collections/${now.latest_collection}`)).body;
    expect(col).toMatchObject({ status: 'past_due', collection_attempts: attempts, next_collection_attempt_date: next });
  }
  t.clock.set(new Date('2026-03-07T10:00:00.000Z'));
  await t.runDue();
  col = (await api().get(`/v1/collections/${now.latest_collection}`)).body;
  expect(col.status).toBe('uncollectible');
  now = (await api().get(`/v1/subscriptions/${sub.id}`)).body;
  expect(now.status).toBe('unpaid');
  const types = (await api().get(`/v1/subscriptions/${sub.id}/history`)).body.data.map((e: { type: string }) => e.type);
  expect(types).toEqual(expect.arrayContaining(['collection.past_due', 'subscription.past_due', 'collection.uncollectible', 'subscription.unpaid']));
  expect(types.indexOf('collection.past_due')).toBeLessThan(types.indexOf('subscription.past_due'));
  // Paying the overdue collection brings it back.
  const paid = await api().post(`/v1/collections/${now.latest_collection}/pay`, { payment_information: card() });
  expect(paid.body.status).toBe('paid');
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
});

test('an incomplete subscription expires after 23 hours and its collection is voided', async () => {
  t.clock.set(new Date('2026-05-01T10:00:00.000Z'));
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline') })).body;
  expect(sub.status).toBe('incomplete');
  t.clock.set(new Date('2026-05-02T08:59:59.000Z'));
  await t.runDue();
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('incomplete');
  t.clock.set(new Date('2026-05-02T09:00:00.000Z'));
  await t.runDue();
  expect((await api().get(`/v1/subscriptions/${sub.id}`)).body).toMatchObject({ status: 'expired', expired_at: '2026-05-02T09:00:00.000Z' });
  expect((await api().get(`/v1/collections/${sub.latest_collection}`)).body.status).toBe('voided');
});

describe('recovery: a follow-up the process never made is made by the scheduler (sync)', () => {
  test('a collection paid whose subscription never heard of it: activated at the next run', async () => {
    t.clock.set(new Date('2026-07-01T10:00:00.000Z'));
    const s = await billingSetup(api());
    const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('decline') })).body;
    expect(sub.status).toBe('incomplete');
    // The process "stops" right after collection.paid: the payment is recorded on the collection's
    // stream alone, without the inline follow-up that activates the subscription.
    const executor = t.app.get(AggregateExecutor);
    const owner = { accountId, mode: 'test' as const, requestId: null, idempotencyKey: null };
    await executor.execute(collectionDecider, collectionStream(sub.latest_collection), (now) => ({ type: 'PayOutOfBand' as const, owner, collectionId: sub.latest_collection, proof: null, now }), owner);
    await t.app.get(ProjectionEngine).catchUp();
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('incomplete');
    await t.runDue();
    expect((await api().get(`/v1/subscriptions/${sub.id}`)).body.status).toBe('active');
  });

  test('a subscription whose first collection was never written: the collection is made and attempted after a minute', async () => {
    t.clock.set(new Date('2026-08-01T10:00:00.000Z'));
    const s = await billingSetup(api());
    await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() });
    const pm = (await api().get(`/v1/customers/${s.customer.id}`)).body.default_payment_method;
    // Only the subscription is written (as if the process stopped before its collection).
    const executor = t.app.get(AggregateExecutor);
    const owner = { accountId, mode: 'test' as const, requestId: null, idempotencyKey: null };
    const price = (await api().get(`/v1/prices/${s.monthly.id}`)).body;
    const product = (await api().get(`/v1/products/${s.product.id}`)).body;
    const created = await executor.execute(subscriptionDecider, subscriptionStream('sub_recovery1'), (now) => ({
      type: 'CreateSubscription' as const,
      owner,
      subscriptionId: 'sub_recovery1',
      firstCollectionId: 'col_recovery1',
      discountIds: [],
      input: { customer: s.customer.id, items: [{ newId: 'si_recovery1', price, product, quantity: 1 }], payment_method: pm },
      paymentMethods: { customerDefault: pm, requestedUsable: true },
      migrate: false,
      now,
    }), owner);
    expect(created.state.fields!.status).toBe('incomplete');
    await t.app.get(ProjectionEngine).catchUp();
    await t.runDue();
    expect((await api().get('/v1/collections/col_recovery1')).status).toBe(404); // within the grace minute
    t.clock.advanceMs(61_000);
    await t.runDue();
    expect((await api().get('/v1/collections/col_recovery1')).body).toMatchObject({ status: 'paid', subscription: 'sub_recovery1' });
    expect((await api().get('/v1/subscriptions/sub_recovery1')).body.status).toBe('active');
  });
});

test('a payment that awaits the customer (pse) is given up after 24 hours: payment_failed, payable again', async () => {
  t.clock.set(new Date('2026-09-01T10:00:00.000Z'));
  const s = await billingSetup(api());
  const col = (await api().post('/v1/collections', { customer: s.customer.id, items: [{ price: s.setupFee.id }], collection_method: 'charge' })).body;
  const pse = await api().post(`/v1/collections/${col.id}/pay`, { payment_information: { gateway: 'gateway_a', type: 'pse', bank_code: '1007' } });
  expect(pse.body.status).toBe('processing');
  t.clock.set(new Date('2026-09-02T09:59:59.000Z'));
  await t.runDue();
  expect((await api().get(`/v1/collections/${col.id}`)).body.status).toBe('processing');
  t.clock.set(new Date('2026-09-02T10:00:00.000Z'));
  await t.runDue();
  const after = (await api().get(`/v1/collections/${col.id}`)).body;
  expect(after).toMatchObject({ status: 'pending', additional_data: null });
  const charges = (await api().get(`/v1/charges?collection=${col.id}`)).body.data;
  expect(charges[0]).toMatchObject({ status: 'failed', failure_code: 'payment_not_completed' });
  const types = (await api().get(`/v1/events?object_id=${col.id}`)).body.data.map((e: { type: string }) => e.type);
  expect(types).toContain('collection.payment_failed');
  expect((await api().post(`/v1/collections/${col.id}/pay`, { payment_information: card() })).body.status).toBe('paid');
});
