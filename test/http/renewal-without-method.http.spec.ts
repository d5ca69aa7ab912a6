import { startTestApp, type TestApp } from '../support/test-app.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { history } from '../support/subscription-helpers.js';
import { advance, clockAndCustomer, collectionsOf, count, getCol, getSub, historyTypes } from '../support/lifecycle.js';

/**
 * Issue 8: a `charge` renewal whose payment cannot even be attempted (the saved method deleted, none
 * at all) is a failed attempt at the renewal's own time: past due, dunning on the account's policy
 * (each retry fails again at its time), uncollectible/unpaid; a new method brings it back.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const RENEWAL = '2026-02-28T10:00:00.000Z';

/** A monthly charge subscription paid with an approving card, whose saved method is then deleted. */
async function subscriptionWithoutMethod() {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub).toMatchObject({ status: 'active', payment_method: expect.stringMatching(/^pm_/) });
  const deleted = await api().post(`/v1/payment_methods/${sub.payment_method}/delete`, {});
  expect(deleted.status).toBe(200);
  return { s, clock, customer, sub };
}

/** `created` of each feed event of the subscription's history, by type, in order. */
async function timeline(id: string) {
  return (await history(api(), id, 100)).map((e) => `${e.type}@${e.created}`);
}

test('deleted method: the renewal is a failed attempt at its time (payment_method_missing), dunning to unpaid, a new method brings it back to active', async () => {
  const { clock, customer, sub } = await subscriptionWithoutMethod();
  await advance(api(), clock.id, '2026-04-01T00:00:00.000Z');

  const cols = await collectionsOf(api(), sub.id);
  expect(cols).toHaveLength(2);
  const renewal = cols[1];
  expect(renewal).toMatchObject({
    status: 'uncollectible',
    billing_reason: 'subscription_cycle',
    due_date: RENEWAL,
    created_date: '2026-02-28 10:00:00',
    collection_attempts: 4,
  });
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'unpaid', next_renewal_date: '2026-03-31T10:00:00.000Z' });

  const types = await historyTypes(api(), sub.id);
  expect(count(types, 'subscription.renewed')).toBe(1);
  expect(count(types, 'collection.payment_failed')).toBe(4);
  expect(count(types, 'collection.past_due')).toBe(1);
  expect(count(types, 'subscription.past_due')).toBe(1);
  expect(count(types, 'collection.uncollectible')).toBe(1);
  expect(count(types, 'subscription.unpaid')).toBe(1);
  // Nothing reached a gateway: no transaction, no charge after the first (paid) collection.
  expect(types.slice(types.indexOf('subscription.renewed')).filter((x) => x.startsWith('charge.') || x.startsWith('transaction.'))).toEqual([]);

  const feed = (await api().get(`/v1/events?object_id=${renewal.id}&limit=100`)).body.data as any[];
  const failures = feed.filter((e) => e.type === 'collection.payment_failed');
  expect(failures.map((e) => e.created)).toEqual([
    RENEWAL,
    '2026-03-01T10:00:00.000Z',
    '2026-03-03T10:00:00.000Z',
    '2026-03-05T10:00:00.000Z',
  ]);
  for (const f of failures) {
    expect(f.data.object.last_payment_error).toMatchObject({ code: 'payment_method_missing', decline_code: null, charge: null });
  }
  expect(failures.map((f) => f.data.object.collection_attempts)).toEqual([1, 2, 3, 4]);
  expect(feed.filter((e) => e.type === 'collection.reminder').map((e) => e.created)).toEqual(['2026-03-01T10:00:00.000Z', '2026-03-03T10:00:00.000Z', '2026-03-05T10:00:00.000Z']);
  const stamped = await timeline(sub.id);
  expect(stamped).toEqual(expect.arrayContaining([
    `subscription.renewed@${RENEWAL}`,
    `collection.past_due@${RENEWAL}`,
    `subscription.past_due@${RENEWAL}`,
    'collection.uncollectible@2026-03-07T10:00:00.000Z',
    'subscription.unpaid@2026-03-07T10:00:00.000Z',
  ]));

  // A new card for the customer, set on the subscription, then the overdue collection paid: active again.
  const pay = await api().post(`/v1/collections/${renewal.id}/pay`, { payment_information: card() });
  expect(pay.status).toBe(200);
  expect(pay.body).toMatchObject({ status: 'paid', paid_date: '2026-04-01T00:00:00.000Z' });
  const back = await getSub(api(), sub.id);
  expect(back.status).toBe('active');
  expect(customer.id).toBeTruthy();
});
