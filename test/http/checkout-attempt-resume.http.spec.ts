import { CommandBus } from '@nestjs/cqrs';
import { HostedCheckout } from '#checkout/application/hosted-checkout.js';
import { CreateSubscriptionCommand } from '#subscriptions/application/create-subscription.js';
import { PAYMENT_GATEWAY, type ChargeRequest, type PaymentGateway } from '#payments/gateways/payment-gateway.port.js';
import { billingSetup, card } from '../support/billing-fixtures.js';
import { advance, clockAndCustomer } from '../support/lifecycle.js';
import { feed, lastEventId } from '../support/subscription-helpers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A checkout session's attempt is recorded on the session before the gateway is called; a process
 * that stops right after the gateway's answer (the money may have been taken, nothing of it written)
 * leaves an attempt that is finished, never forgotten: the next pay, or the session's deadline, asks
 * the gateway again with the same charge id (the same answer), records it and makes what it paid for.
 * Exactly one charge; the session complete and paid, in the spec's order.
 */
let t: TestApp;
let key: string;
let pages: HostedCheckout;
let gateway: PaymentGateway;
/** Every charge request the gateway received (idempotency keys). */
let asked: ChargeRequest[];

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.account()).test_key;
  pages = t.app.get(HostedCheckout);
  gateway = t.app.get<PaymentGateway>(PAYMENT_GATEWAY);
  const real = gateway.charge.bind(gateway);
  gateway.charge = async (request) => {
    asked.push(request);
    return real(request);
  };
});
beforeEach(() => {
  asked = [];
});
afterAll(() => t.close());

const api = () => t.as(key);
const req = { ip_address: '203.0.113.7', user_agent: 'jest' };
const tokenOf = (url: string) => url.split('#')[1];

/** The next pay "dies" right after the gateway answered (as after a SIGKILL there): the gateway charged, nothing of its answer is written. */
async function payAndDie(url: string, info: object): Promise<void> {
  const counting = gateway.charge;
  gateway.charge = async (request) => {
    await counting(request);
    throw new Error('the process stopped after the gateway answered');
  };
  try {
    await expect(pages.pay(tokenOf(url), { payment_information: info as never }, req)).rejects.toThrow('the process stopped after the gateway answered');
  } finally {
    gateway.charge = counting;
  }
}

const charges = async (customer: string) => (await api().get(`/v1/charges?customer=${customer}`)).body.data as Array<{ id: string; status: string; collection: string }>;

test('died after an approval: the next pay finishes that attempt (same charge id, asked again), charges nothing more, and the session completes paid', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  const before = await lastEventId(api());
  await payAndDie(session.url, card('approve'));
  expect(asked).toHaveLength(1);
  const chargeId = asked[0].idempotencyKey;
  expect(chargeId).toMatch(/^ch_/);
  // Nothing but the attempt is on disk: open, no collection, no charge, nothing in the feed.
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'open', payment_status: 'unpaid', collection: null });
  expect(await charges(s.customer.id)).toEqual([]);
  expect(await feed(api(), before)).toEqual([]);
  // Within a minute the attempt may still be answered by its own request (another tab): refused.
  await expect(pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).rejects.toMatchObject({ code: 'payment_in_progress' });
  const start = t.clock.now();
  t.clock.set(new Date(start.getTime() + 61_000));
  try {
    // Paying again (even with a card that declines): the approved attempt is the payment.
    const again = await pages.pay(tokenOf(session.url), { payment_information: card('decline') }, req);
    expect(again.status).toBe('complete');
  } finally {
    t.clock.set(start);
  }
  expect(asked.map((r) => r.idempotencyKey)).toEqual([chargeId, chargeId]);
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid', collection: expect.stringMatching(/^col_/) });
  expect((await charges(s.customer.id)).map((c) => [c.id, c.status, c.collection])).toEqual([[chargeId, 'succeeded', after.collection]]);
  expect((await api().get(`/v1/collections/${after.collection}`)).body).toMatchObject({ status: 'paid', total: session.total });
  expect((await feed(api(), before)).map((e) => e.type)).toEqual(['checkout_session.completed', 'collection.created', 'transaction.created', 'charge.created', 'charge.paid', 'collection.paid', 'payment_method.created', 'customer.updated']);
});

test('died after an approval, and nobody pays again: the session`s deadline resumes the attempt (never expiring it unresolved); one charge, the subscription active', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-09-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], expires_at: '2026-09-01T11:00:00.000Z' })).body;
  const before = await lastEventId(api());
  await payAndDie(session.url, card('approve'));
  const chargeId = asked[0].idempotencyKey;
  // Past expires_at: the deadline asks the gateway again first; the session was paid, so it completes instead of expiring.
  await advance(api(), clock.id, '2026-09-01T12:00:00.000Z');
  expect(asked.map((r) => r.idempotencyKey)).toEqual([chargeId, chargeId]);
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid', expired_at: null, subscription: expect.stringMatching(/^sub_/) });
  expect((await api().get(`/v1/subscriptions/${after.subscription}`)).body).toMatchObject({ status: 'active' });
  expect((await charges(customer.id)).map((c) => [c.id, c.status])).toEqual([[chargeId, 'succeeded']]);
  const types = (await feed(api(), before)).map((e) => e.type).filter((type) => !type.startsWith('test_clock.'));
  expect(types.filter((type) => type.startsWith('checkout_session.'))).toEqual(['checkout_session.completed']);
  expect(types.slice(0, 3)).toEqual(['checkout_session.completed', 'subscription.created', 'collection.created']);
  expect(types).toContain('subscription.activated');
});

test('died after a decline: the deadline records the decline (checkout_session.payment_failed), then at expires_at the session expires', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-09-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }], expires_at: '2026-09-01T11:00:00.000Z' })).body;
  const before = await lastEventId(api());
  await payAndDie(session.url, card('decline'));
  // A minute later the deadline resumes it: declined, the session still open and payable.
  await advance(api(), clock.id, '2026-09-01T10:05:00.000Z');
  expect((await api().get(`/v1/checkout_session/${session.id}`)).body).toMatchObject({ status: 'open', payment_status: 'unpaid', last_payment: { status: 'declined', decline_code: 'generic_decline' } });
  await advance(api(), clock.id, '2026-09-01T12:00:00.000Z');
  const types = (await feed(api(), before)).map((e) => e.type).filter((type) => !type.startsWith('test_clock.'));
  expect(types).toEqual(['checkout_session.payment_failed', 'checkout_session.expired']);
  expect(await charges(customer.id)).toEqual([]);
  expect(new Set(asked.map((r) => r.idempotencyKey)).size).toBe(1);
});

test('died after checkout_session.completed, before the subscription was made: the deadline makes it with the attempt`s ids and records the same charge (asked again with its id); one charge', async () => {
  const s = await billingSetup(api());
  const { clock, customer } = await clockAndCustomer(api(), '2026-09-01T10:00:00.000Z');
  const session = (await api().post('/v1/checkout_session', { mode: 'subscription', customer: customer.id, items: [{ price: s.monthly.id }] })).body;
  const before = await lastEventId(api());
  const bus = t.app.get(CommandBus);
  const execute = bus.execute.bind(bus);
  bus.execute = (async (command: unknown) => {
    if (command instanceof CreateSubscriptionCommand) throw new Error('the process stopped before the subscription was made');
    return execute(command as never);
  }) as typeof bus.execute;
  try {
    await expect(pages.pay(tokenOf(session.url), { payment_information: card('approve') }, req)).rejects.toThrow('the process stopped before the subscription was made');
  } finally {
    bus.execute = execute;
  }
  const chargeId = asked[0].idempotencyKey;
  // The error left before the read-your-writes wait: the completion shows once projected.
  let mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  for (let i = 0; i < 100 && mid.status !== 'complete'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    mid = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  }
  expect(mid).toMatchObject({ status: 'complete', payment_status: 'paid', subscription: expect.stringMatching(/^sub_/) });
  expect((await api().get(`/v1/subscriptions/${mid.subscription}`)).status).toBe(404);
  // A minute later the deadline finishes it.
  await advance(api(), clock.id, '2026-09-01T10:02:00.000Z');
  expect((await api().get(`/v1/subscriptions/${mid.subscription}`)).body).toMatchObject({ status: 'active', latest_collection: mid.collection });
  expect((await charges(customer.id)).map((c) => [c.id, c.status])).toEqual([[chargeId, 'succeeded']]);
  expect(new Set(asked.map((r) => r.idempotencyKey))).toEqual(new Set([chargeId]));
  const types = (await feed(api(), before)).map((e) => e.type).filter((type) => !type.startsWith('test_clock.'));
  expect(types.slice(0, 3)).toEqual(['checkout_session.completed', 'subscription.created', 'collection.created']);
  expect(types).toContain('subscription.activated');
});

test('a technical failure at the gateway (the flaky card): a second charge id, recorded on the session first, is approved; the collection shows both tries', async () => {
  const s = await billingSetup(api());
  const session = (await api().post('/v1/checkout_session', { mode: 'payment', customer: s.customer.id, items: [{ price: s.setupFee.id }] })).body;
  expect((await pages.pay(tokenOf(session.url), { payment_information: card('flaky') }, req)).status).toBe('complete');
  expect(asked.map((r) => r.tryNumber)).toEqual([1, 2]);
  const after = (await api().get(`/v1/checkout_session/${session.id}`)).body;
  expect(after).toMatchObject({ status: 'complete', payment_status: 'paid' });
  const tries = (await charges(s.customer.id)).map((c) => [c.id, c.status]);
  expect(tries.sort()).toEqual(asked.map((r, i) => [r.idempotencyKey, i === 0 ? 'failed' : 'succeeded']).sort());
});
