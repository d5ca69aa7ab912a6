import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer, collectionsOf, count, createdDate, getSub, historyTypes, subscriptionTypes } from '../support/lifecycle.js';

/** Issue 4, §2–3: how subscriptions stop (or pause) on a test clock: duration, cancel at period end, commitment, pause with resumes_at. */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';

async function chargeSubscription(extra: Record<string, unknown> = {}, frozen = START) {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), frozen);
  const res = await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card(), ...extra });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('active');
  return { clock, sub: res.body };
}

describe('duration', () => {
  test('duration 3: will_end at the renewal that makes the 3rd collection, ended at the next renewal date, no 4th collection', async () => {
    const { clock, sub } = await chargeSubscription({ duration: 3 });
    expect(sub.duration).toBe(3);

    await advance(api(), clock.id, '2026-02-28T10:00:00.000Z');
    expect(await subscriptionTypes(api(), sub.id)).toEqual(['subscription.created', 'subscription.activated', 'subscription.updated', 'subscription.renewed']);

    await advance(api(), clock.id, '2026-03-31T10:00:00.000Z');
    let types = await subscriptionTypes(api(), sub.id);
    expect(types.slice(-2)).toEqual(['subscription.renewed', 'subscription.will_end']);
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active', collections_count: 3, next_renewal_date: '2026-04-30T10:00:00.000Z' });
    const willEnd = (await api().get(`/v1/events?object_id=${sub.id}&limit=100`)).body.data.find((e: { type: string }) => e.type === 'subscription.will_end');
    expect(willEnd.created).toBeDefined();

    await advance(api(), clock.id, '2026-04-30T09:59:59.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('active');
    await advance(api(), clock.id, '2026-04-30T10:00:00.000Z');
    const ended = await getSub(api(), sub.id);
    expect(ended).toMatchObject({ status: 'ended', ended_at: '2026-04-30T10:00:00.000Z', next_renewal_date: null, collections_count: 3 });
    const cols = await collectionsOf(api(), sub.id);
    expect(cols.map((c) => c.status)).toEqual(['paid', 'paid', 'paid']);
    expect(cols.map((c) => c.created_date)).toEqual(['2026-01-31 10:00:00', '2026-02-28 10:00:00', '2026-03-31 10:00:00']);
    types = await historyTypes(api(), sub.id);
    expect(types.at(-1)).toBe('subscription.ended');
    expect(count(types, 'subscription.will_end')).toBe(1);
    expect(count(types, 'subscription.renewed')).toBe(2);

    // Nothing further, however far the clock goes.
    await advance(api(), clock.id, '2027-06-01T00:00:00.000Z');
    expect(await historyTypes(api(), sub.id)).toEqual(types);
    expect(await collectionsOf(api(), sub.id)).toHaveLength(3);
    expect((await getSub(api(), sub.id)).status).toBe('ended');
  });

  test('duration 3 in one long advance: the same subscription events, ended at the 3rd renewal date', async () => {
    const a = await chargeSubscription({ duration: 3 });
    await advance(api(), a.clock.id, '2026-12-31T00:00:00.000Z');
    const types = await historyTypes(api(), a.sub.id);
    expect(types.filter((x) => x.startsWith('subscription.'))).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.updated',
      'subscription.renewed',
      'subscription.renewed',
      'subscription.will_end',
      'subscription.ended',
    ]);
    expect(await getSub(api(), a.sub.id)).toMatchObject({ status: 'ended', ended_at: '2026-04-30T10:00:00.000Z' });
  });

  test('duration 1: will_end with the first collection, ended at the first renewal date', async () => {
    const { clock, sub } = await chargeSubscription({ duration: 1 });
    await advance(api(), clock.id, '2026-03-15T00:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'ended', ended_at: '2026-02-28T10:00:00.000Z' });
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
    expect(await subscriptionTypes(api(), sub.id)).toEqual(expect.arrayContaining(['subscription.ended']));
  });
});

describe('cancel at period end', () => {
  test('pending_cancel → canceled at the period end with subscription.canceled; no renewal', async () => {
    const { clock, sub } = await chargeSubscription();
    await advance(api(), clock.id, '2026-02-10T00:00:00.000Z');
    const res = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-02-28T10:00:00.000Z' });

    await advance(api(), clock.id, '2026-02-28T09:59:59.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('pending_cancel');
    await advance(api(), clock.id, '2026-02-28T10:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'canceled', canceled_at: '2026-02-28T10:00:00.000Z' });
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
    const types = await subscriptionTypes(api(), sub.id);
    expect(types.slice(-2)).toEqual(['subscription.pending_canceled', 'subscription.canceled']);
    expect(count(types, 'subscription.renewed')).toBe(0);

    await advance(api(), clock.id, '2026-08-01T00:00:00.000Z');
    expect(await subscriptionTypes(api(), sub.id)).toEqual(types);
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
  });
});

describe('commitment (commitment_periods: 3)', () => {
  const FROM = '2026-01-15T12:00:00.000Z';

  test('cancel now in month 1 is 409 commitment_not_met; period_end cancels at the end of month 3, the committed periods billed', async () => {
    const { clock, sub } = await chargeSubscription({ commitment_periods: 3 }, FROM);
    await advance(api(), clock.id, '2026-01-20T00:00:00.000Z');
    const now = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expect(now.status).toBe(409);
    expect(now.body.error).toMatchObject({ type: 'invalid_request_error', code: 'commitment_not_met', param: 'cancel_at' });
    expect(now.body.error.message).toContain('2026-04-15T12:00:00.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('active');

    const end = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-04-15T12:00:00.000Z' });

    // The committed periods are still billed, and the subscription stays pending_cancel.
    await advance(api(), clock.id, '2026-03-15T12:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-04-15T12:00:00.000Z', collections_count: 3, next_renewal_date: '2026-04-15T12:00:00.000Z' });
    await advance(api(), clock.id, '2026-04-15T11:59:59.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('pending_cancel');
    await advance(api(), clock.id, '2026-04-15T12:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'canceled', canceled_at: '2026-04-15T12:00:00.000Z', collections_count: 3 });
    // The three committed periods are the three collections made.
    const cols = await collectionsOf(api(), sub.id);
    expect(cols.map((c) => c.created_date)).toEqual([FROM, '2026-02-15T12:00:00.000Z', '2026-03-15T12:00:00.000Z'].map(createdDate));
    expect(cols.map((c) => c.status)).toEqual(['paid', 'paid', 'paid']);
    expect((await subscriptionTypes(api(), sub.id)).slice(-4)).toEqual(['subscription.pending_canceled', 'subscription.renewed', 'subscription.renewed', 'subscription.canceled']);
    await advance(api(), clock.id, '2026-06-01T00:00:00.000Z');
    expect(await collectionsOf(api(), sub.id)).toHaveLength(3);
  });

  test('a committed renewal declined while pending_cancel: past_due, paid back to pending_cancel, canceled at the end of the commitment', async () => {
    const { clock, sub } = await chargeSubscription({ commitment_periods: 3 }, FROM);
    expect((await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' })).body.status).toBe('pending_cancel');
    const declining = (await api().post('/v1/payment_methods/migrate', { customer: sub.customer, gateway: 'gateway_a', type: 'card', token: 'simtok_decline_c3', card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 } })).body;
    expect((await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id })).status).toBe(200);
    await advance(api(), clock.id, '2026-02-15T12:00:00.000Z');
    const overdue = await getSub(api(), sub.id);
    expect(overdue).toMatchObject({ status: 'past_due', cancel_at: '2026-04-15T12:00:00.000Z' });
    // Paid by hand: back to pending_cancel, the cancellation still scheduled.
    expect((await api().post(`/v1/collections/${overdue.latest_collection}/pay`, { payment_information: card() })).body.status).toBe('paid');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-04-15T12:00:00.000Z' });
    await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: (await getSub(api(), sub.id)).payment_method });
    await advance(api(), clock.id, '2026-04-15T12:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'canceled', canceled_at: '2026-04-15T12:00:00.000Z' });
  });

  test('overdue at the end of the commitment: still canceled at cancel_at', async () => {
    const { clock, sub } = await chargeSubscription({ commitment_periods: 2 }, FROM);
    expect((await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' })).body.cancel_at).toBe('2026-03-15T12:00:00.000Z');
    const declining = (await api().post('/v1/payment_methods/migrate', { customer: sub.customer, gateway: 'gateway_a', type: 'card', token: 'simtok_decline_c4', card: { brand: 'visa', last4: '0002', exp_month: 1, exp_year: 2030 } })).body;
    await api().post(`/v1/subscriptions/${sub.id}/update`, { payment_method: declining.id });
    await advance(api(), clock.id, '2026-03-20T00:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'canceled', canceled_at: '2026-03-15T12:00:00.000Z' });
    expect(await collectionsOf(api(), sub.id)).toHaveLength(2);
  });

  test('once the commitment is over, cancel now is allowed', async () => {
    const { clock, sub } = await chargeSubscription({ commitment_periods: 3 }, FROM);
    await advance(api(), clock.id, '2026-04-15T11:59:59.000Z');
    expect((await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' })).status).toBe(409);
    await advance(api(), clock.id, '2026-04-15T12:00:00.000Z');
    const res = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'now' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'canceled', canceled_at: '2026-04-15T12:00:00.000Z' });
  });

  test('after the commitment, period_end cancels at the end of the current period', async () => {
    const { clock, sub } = await chargeSubscription({ commitment_periods: 3 }, FROM);
    await advance(api(), clock.id, '2026-05-01T00:00:00.000Z');
    const res = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
    expect(res.body).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-05-15T12:00:00.000Z' });
  });
});

describe('pause with resumes_at', () => {
  test('no collection while paused; subscription.resumed at resumes_at; the next renewal is the next boundary after it', async () => {
    const { clock, sub } = await chargeSubscription();
    await advance(api(), clock.id, '2026-02-10T00:00:00.000Z');
    const paused = await api().post(`/v1/subscriptions/${sub.id}/pause`, { resumes_at: '2026-04-15T00:00:00.000Z' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', paused_at: '2026-02-10T00:00:00.000Z', resumes_at: '2026-04-15T00:00:00.000Z' });

    // Two renewal dates pass while paused: nothing is billed.
    await advance(api(), clock.id, '2026-04-14T23:59:59.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('paused');
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);

    await advance(api(), clock.id, '2026-04-15T00:00:00.000Z');
    const resumed = await getSub(api(), sub.id);
    expect(resumed).toMatchObject({ status: 'active', resumes_at: null, paused_at: null, next_renewal_date: '2026-04-30T10:00:00.000Z' });
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
    expect((await subscriptionTypes(api(), sub.id)).slice(-2)).toEqual(['subscription.paused', 'subscription.resumed']);
    const event = (await api().get(`/v1/events?object_id=${sub.id}&limit=100`)).body.data.at(-1);
    expect(event).toMatchObject({ type: 'subscription.resumed', data: { object: { status: 'active' } } });

    await advance(api(), clock.id, '2026-04-30T10:00:00.000Z');
    const cols = await collectionsOf(api(), sub.id);
    expect(cols.map((c) => c.created_date)).toEqual(['2026-01-31 10:00:00', '2026-04-30 10:00:00']);
    expect(cols.map((c) => c.status)).toEqual(['paid', 'paid']);
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active', current_period_start: '2026-04-30T10:00:00.000Z', next_renewal_date: '2026-05-31T10:00:00.000Z' });
  });

  test('a pause that ends before the renewal date keeps the renewal date', async () => {
    const { clock, sub } = await chargeSubscription();
    await advance(api(), clock.id, '2026-02-01T00:00:00.000Z');
    await api().post(`/v1/subscriptions/${sub.id}/pause`, { resumes_at: '2026-02-10T00:00:00.000Z' });
    await advance(api(), clock.id, '2026-02-28T10:00:00.000Z');
    expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active', collections_count: 2, next_renewal_date: '2026-03-31T10:00:00.000Z' });
    expect((await subscriptionTypes(api(), sub.id)).slice(-3)).toEqual(['subscription.paused', 'subscription.resumed', 'subscription.renewed']);
  });

  test('a pause without resumes_at stays paused however far the clock goes', async () => {
    const { clock, sub } = await chargeSubscription();
    await api().post(`/v1/subscriptions/${sub.id}/pause`, {});
    await advance(api(), clock.id, '2026-09-01T00:00:00.000Z');
    expect((await getSub(api(), sub.id)).status).toBe('paused');
    expect(await collectionsOf(api(), sub.id)).toHaveLength(1);
  });
});
