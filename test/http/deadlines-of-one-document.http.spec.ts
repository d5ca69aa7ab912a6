import { startTestApp, type TestApp } from '../support/test-app.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { SubscriptionDoc } from '#subscriptions/read-models/subscription.read-model.js';
import { deadlinesFields } from '#shared/deadlines.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { history } from '../support/subscription-helpers.js';
import { advance, clockAndCustomer, getSub } from '../support/lifecycle.js';

/**
 * Issue 8: no deadline of a document is blocked by another deadline of the same document that decided
 * nothing. The subscription's read model is given a stale `sync` deadline (its latest collection
 * "uncollectible" while the subscription is active: the aggregate has nothing to follow, so the sync
 * decides nothing) due before its renewal. The renewal still runs at its own time, in one advance or in
 * many small steps, with the same history; in real time it runs in the same poll.
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ now: new Date('2026-01-31T10:00:00.000Z') });
  key = (await t.account()).test_key;
});
afterAll(() => t.close());

const api = () => t.as(key);
const START = '2026-01-31T10:00:00.000Z';
const STALE_SYNC = '2026-02-05T10:00:00.000Z';
const RENEWAL = '2026-02-28T10:00:00.000Z';
const TARGET = '2026-03-01T10:00:00.000Z';

/** The subscription's read model now carries a `sync` due at `at` that decides nothing, before its renewal. */
async function staleSync(id: string, at: string) {
  const store = t.app.get<ReadStore>(READ_STORE);
  const doc = (await store.get<SubscriptionDoc>('subscriptions', id))!;
  expect(doc).toMatchObject({ status: 'active', _due_kind: 'renew', _due_at: RENEWAL });
  const stale = { ...doc, _latest_status: 'uncollectible', _latest_status_at: at };
  const fields = deadlinesFields(doc._clock, [{ kind: 'renew', at: RENEWAL }, { kind: 'sync', at }]);
  await store.commit([{ collection: 'subscriptions', id, doc: { ...stale, ...fields } as unknown as Record<string, unknown> }]);
  expect(fields).toMatchObject({ _due_kind: 'sync', _due_at: at, _deadlines: [{ kind: 'sync', at }, { kind: 'renew', at: RENEWAL }] });
}

async function clockedSubscription() {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub).toMatchObject({ status: 'active', next_renewal_date: RENEWAL });
  await staleSync(sub.id, STALE_SYNC);
  return { clock, sub };
}

const timeline = async (id: string) => (await history(api(), id, 100)).map((e) => `${e.type}@${e.created}`);

async function expectRenewedAtItsTime(id: string) {
  expect(await getSub(api(), id)).toMatchObject({ status: 'active', collections_count: 2, current_period_start: RENEWAL, next_renewal_date: '2026-03-31T10:00:00.000Z' });
  const events = await timeline(id);
  expect(events).toContain(`subscription.renewed@${RENEWAL}`);
  expect(events).toContain(`collection.paid@${RENEWAL}`);
}

test('on a test clock, the renewal runs at its own time after an earlier deadline of the same subscription decided nothing: one advance and many steps agree', async () => {
  const one = await clockedSubscription();
  await advance(api(), one.clock.id, TARGET);
  await expectRenewedAtItsTime(one.sub.id);

  const steps = await clockedSubscription();
  for (const at of ['2026-02-01T00:00:00.000Z', STALE_SYNC, '2026-02-05T10:00:00.001Z', '2026-02-17T00:00:00.000Z', '2026-02-28T09:59:59.999Z', RENEWAL, TARGET]) {
    await advance(api(), steps.clock.id, at);
  }
  await expectRenewedAtItsTime(steps.sub.id);
  expect(await timeline(steps.sub.id)).toEqual(await timeline(one.sub.id));
});

test('in real time, the renewal runs at the next poll while an earlier deadline of the same subscription that decided nothing rests', async () => {
  t.clock.set(new Date(START));
  const s = await billingSetup(api());
  const sub = (await api().post('/v1/subscriptions', { customer: s.customer.id, items: [{ price: s.monthly.id }], payment_information: card() })).body;
  expect(sub).toMatchObject({ status: 'active', next_renewal_date: RENEWAL });
  await staleSync(sub.id, STALE_SYNC);

  // The stale sync alone is due, half a minute before the renewal: it decides nothing, and rests a minute.
  t.clock.set(new Date('2026-02-28T09:59:30.000Z'));
  await t.runDue();
  expect(await getSub(api(), sub.id)).toMatchObject({ status: 'active', collections_count: 1, next_renewal_date: RENEWAL });
  // The renewal falls due while the sync rests: the next poll runs it, not hidden behind its document's first deadline.
  t.clock.set(new Date(RENEWAL));
  await t.runDue();
  await expectRenewedAtItsTime(sub.id);
});

test('a committed subscription canceled at period end keeps both pending deadlines: the committed renewal first, then the cancellation', async () => {
  const s = await billingSetup(api());
  const { customer } = await clockAndCustomer(api(), START);
  const sub = (await api().post('/v1/subscriptions', { customer: customer.id, items: [{ price: s.monthly.id }], payment_information: card(), commitment_periods: 3 })).body;
  const end = await api().post(`/v1/subscriptions/${sub.id}/cancel`, { cancel_at: 'period_end' });
  expect(end.body).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-04-30T10:00:00.000Z' });
  const doc = await t.app.get<ReadStore>(READ_STORE).get<SubscriptionDoc>('subscriptions', sub.id);
  expect(doc).toMatchObject({
    _due_kind: 'renew',
    _due_at: RENEWAL,
    _deadlines: [
      { kind: 'renew', at: RENEWAL },
      { kind: 'cancel', at: '2026-04-30T10:00:00.000Z' },
    ],
  });
});
