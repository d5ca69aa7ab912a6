import { jest } from '@jest/globals';
import type { EventStore, StreamAppend } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * create-subscription as one unit of work (issue 12): the subscription, its first collection and the
 * collection's attempt are appended in ONE multi-stream commit before the gateway is called, and what
 * follows the gateway's answer in a second one; the events keep the spec's order.
 */
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

test('charge + approving card: subscription.created, collection.created, transaction.created, charge.created in one commit, then the outcome and its follow-ups in a second one, in order', async () => {
  const api = () => t.as(key);
  const s = await billingSetup(api());
  const store = t.app.get<EventStore>(EVENT_STORE);
  const appendMany = jest.spyOn(store, 'appendMany');
  const head = await store.headPosition();
  const res = await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card('approve') });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('active');

  const commits = appendMany.mock.calls.map(([parts]) => (parts as StreamAppend[]).map((p) => p.events.map((e) => e.type)));
  appendMany.mockRestore();
  expect(commits[0]).toEqual([['subscription.created'], ['collection.created'], ['transaction.created', 'charge.created']]);
  const types = (await store.readAll({ after: head, maxCount: 100 })).map((e) => e.type);
  // The spec's order (the same as when each step was its own commit).
  expect(types).toEqual([
    'subscription.created', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid',
    'payment_method.created', 'customer.updated', 'subscription.activated', 'subscription.updated',
  ]);
  // Every event the request wrote is in exactly one commit, in that order.
  expect(commits.flat(2)).toEqual(types);
  // What follows the gateway's answer is the second commit.
  expect(commits[1]).toEqual([['charge.paid', 'collection.paid'], ['payment_method.created'], ['customer.updated'], ['subscription.activated', 'subscription.updated']]);
  expect(commits.length).toBe(2); // seven before the unit of work, five before the post-gateway commit
});

test('concurrent create-subscriptions for one customer (its stream written by each): every one active, one paid charge per collection, each in the spec order', async () => {
  const api = () => t.as(key);
  const s = await billingSetup(api());
  const store = t.app.get<EventStore>(EVENT_STORE);
  const head = await store.headPosition();
  // Different cards, so each request saves its own method and offers it as the customer's default:
  // the post-gateway commits contend on the customer's stream.
  const cards = ['4242424242424242', '5555555555554444', '4111111111111111', '378282246310005', '6011111111111117', '3056930009020004'];
  const answers = await Promise.all(
    cards.map((number) =>
      api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: { gateway: 'gateway_a', type: 'card', card: { number, exp_month: 12, exp_year: 2030, cvc: '123' } } }),
    ),
  );
  expect(answers.map((r) => [r.status, r.body.status])).toEqual(cards.map(() => [200, 'active']));
  const events = await store.readAll({ after: head, maxCount: 1000 });
  for (const r of answers) {
    const sub = r.body.id as string;
    const collection = events.find((e) => e.type === 'collection.created' && e.data.subscription === sub)!.data.id as string;
    const mine = events.filter((e) => e.streamId === `subscription-${sub}` || e.streamId === `collection-${collection}`).map((e) => e.type);
    expect(mine).toEqual(['subscription.created', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid', 'subscription.activated', 'subscription.updated']);
  }
  expect(events.filter((e) => e.type === 'charge.paid').length).toBe(cards.length);
  expect(events.filter((e) => e.type === 'payment_method.created').length).toBe(cards.length);
  // The customer's default is the first method saved (onlyIfUnset), set once.
  const customer = (await api().get(`/v1/customers/${s.customer.id}`)).body;
  const firstSaved = events.find((e) => e.type === 'payment_method.created')!.data.id;
  expect(customer.default_payment_method).toBe(firstSaved);
});
