import { fold } from '../../../shared/src/decider.js';
import { given } from '../../../shared/src/testing/given.js';
import { priceSnapshot } from '../../../collections/src/domain/testing/price-snapshot.js';
import type { LineInput } from '../../../collections/src/domain/pricing.js';
import { type CheckoutSessionCommand, type CheckoutSessionEvent, type CreateCheckoutSessionInput, checkoutSessionDeadline, checkoutSessionDecider } from './checkout-session.decider.js';

const owner = { accountId: 'acct_1', mode: 'test' as const };
const now = new Date('2026-11-23T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const monthly: LineInput = { id: 'si_1', price: priceSnapshot('49900'), product: { id: 'prod_1', name: 'Plan' }, quantity: 1, rate: null };
const fee: LineInput = { id: 'si_2', price: priceSnapshot('10000', { id: 'price_fee', type: 'one_time', billing_period: null, billing_interval: null }), product: { id: 'prod_1', name: 'Fee' }, quantity: 1, rate: null };
const weekly: LineInput = { id: 'si_3', price: priceSnapshot('9000', { id: 'price_week', billing_period: 'week' }), product: { id: 'prod_1', name: 'W' }, quantity: 1, rate: null };
const facts = { configuredGateways: ['gateway_a', 'gateway_b'], customer: { id: 'cus_1', test_clock: null }, setupSubscription: null };

const create = (input: Partial<CreateCheckoutSessionInput>, over: Partial<Extract<CheckoutSessionCommand, { type: 'CreateCheckoutSession' }>> = {}): CheckoutSessionCommand => ({
  type: 'CreateCheckoutSession',
  owner,
  sessionId: 'cs_1',
  input: { mode: 'subscription', lines: [monthly], discounts: [], customer: 'cus_1', ...input },
  facts,
  url: 'http://x/checkout/cs/cs_1#t',
  expiresAt: '2026-11-24T10:00:00.000Z',
  now,
  ...over,
});
const created = (input: Partial<CreateCheckoutSessionInput> = {}) => checkoutSessionDecider.decide(create(input), checkoutSessionDecider.initialState);
const details = { ip_address: '1.2.3.4', user_agent: 'ua' };
const card = { gateway: 'gateway_a', type: 'card' };
const complete = (over: object = {}): CheckoutSessionCommand => ({ type: 'CompleteCheckoutSession', owner, sessionId: 'cs_1', details, method: card, subscriptionId: 'sub_1', collectionId: null, now: later(1000), ...over });

describe('checkout session decider: create', () => {
  test('a subscription session: open, priced, expiring in 24 hours by default', () => {
    given(checkoutSessionDecider).when(create({ lines: [monthly, fee] })).then(([e]) => {
      expect(e.type).toBe('checkout_session.created');
      expect(e.data).toMatchObject({ id: 'cs_1', status: 'open', payment_status: 'unpaid', mode: 'subscription', currency: 'COP', subtotal: '59900.00', total: '59900.00', cta_text: 'Suscribirse', expires_at: '2026-11-24T10:00:00.000Z', customer: 'cus_1' });
    });
  });

  test('a trial makes recurring items free in the first total', () => {
    given(checkoutSessionDecider).when(create({ lines: [monthly, fee], subscription_settings: { trial_days: 7 } })).then(([e]) => expect(e.data).toMatchObject({ total: '10000.00' }));
  });

  test('the rules: same frequency, mode/price kinds, settings per mode, gateways configured', () => {
    given(checkoutSessionDecider).when(create({ lines: [monthly, weekly] })).thenRejects('parameter_invalid', 'items');
    given(checkoutSessionDecider).when(create({ mode: 'payment', lines: [monthly] })).thenRejects('parameter_invalid', 'items[0][price]');
    given(checkoutSessionDecider).when(create({ mode: 'subscription', lines: [fee] })).thenRejects('parameter_invalid', 'items');
    given(checkoutSessionDecider).when(create({ mode: 'setup', lines: [fee] })).thenRejects('parameter_invalid', 'items');
    given(checkoutSessionDecider).when(create({ mode: 'payment', lines: [fee], subscription_settings: { trial_days: 1 } })).thenRejects('parameter_invalid', 'subscription_settings');
    given(checkoutSessionDecider).when(create({ payment_methods: { gateway_c: ['card'] } })).thenRejects('gateway_not_configured', 'payment_methods[gateway_c]');
    given(checkoutSessionDecider).when(create({ mode: 'setup', lines: [], payment_methods: { gateway_a: ['pse'] } })).thenRejects('parameter_invalid', 'payment_methods[gateway_a][0]');
    given(checkoutSessionDecider).when(create({ setup_subscription_id: 'sub_1' })).thenRejects('parameter_invalid', 'setup_subscription_id');
    given(checkoutSessionDecider).when(create({ cta_text: 'Comprar' })).thenRejects('parameter_invalid', 'cta_text');
    given(checkoutSessionDecider).when(create({ subscription_settings: { duration: 2, commitment_periods: 3 } })).thenRejects('parameter_invalid', 'subscription_settings[commitment_periods]');
    given(checkoutSessionDecider).when(create({}, { expiresAt: '2026-11-23T10:10:00.000Z' })).thenRejects('parameter_invalid', 'expires_at');
  });

  test('ntp: one price at most, and no trial with it', () => {
    const ntp = (id: string): LineInput => ({ id, price: priceSnapshot(null, { id: `price_${id}`, type: 'one_time', pricing_model: 'ntp', billing_period: null, billing_interval: null, ntp_pricing: { min_amount: '1000.00', max_amount: null, suggested_amount: null } }), product: { id: 'p', name: 'Donación' }, quantity: 1, rate: null });
    given(checkoutSessionDecider).when(create({ mode: 'payment', lines: [ntp('a'), ntp('b')] })).thenRejects('parameter_invalid', 'items');
    given(checkoutSessionDecider).when(create({ lines: [monthly, ntp('a')], subscription_settings: { trial_days: 3 } })).thenRejects('parameter_invalid', 'subscription_settings[trial_days]');
  });
});

describe('checkout session decider: paying', () => {
  test('complete: the session is completed with the subscription it announces; the attempt is in progress', () => {
    given(checkoutSessionDecider, created()).when(complete()).then((events) => {
      expect(events.map((e) => e.type)).toEqual(['checkout_session.completed']);
      expect(events[0].data).toMatchObject({ customer: 'cus_1', subscription: 'sub_1', payment_status: 'unpaid', last_payment: { status: 'in_progress' } });
    });
  });

  test('a second completion (another tab) is refused; an expired or unidentified session cannot be paid', () => {
    const done = [...created(), ...checkoutSessionDecider.decide(complete(), fold(checkoutSessionDecider as never, created()))];
    given(checkoutSessionDecider, done).when(complete()).thenRejects('checkout_session_complete');
    given(checkoutSessionDecider, created()).when(complete({ now: later(25 * 3_600_000) })).thenRejects('checkout_session_expired');
    given(checkoutSessionDecider, created({ customer: null })).when(complete()).thenRejects('customer_required');
    given(checkoutSessionDecider, created({ payment_methods: { gateway_a: ['pse'] } })).when(complete()).thenRejects('payment_method_not_allowed');
  });

  test('after a decline the session may be paid again, one attempt at a time', () => {
    const past: CheckoutSessionEvent[] = [
      ...created(),
      { type: 'checkout_session.completed', data: { id: 'cs_1', customer: 'cus_1', subscription: 'sub_1', collection: null, payment_status: 'unpaid', completed_at: later(1000).toISOString(), last_payment: { status: 'in_progress', started_at: later(1000).toISOString(), message: null, failure_code: null, decline_code: null, additional_data: null }, meta_data: {} } },
    ];
    const retry: CheckoutSessionCommand = { type: 'StartPaymentRetry', owner, sessionId: 'cs_1', method: card, now: later(2000) };
    given(checkoutSessionDecider, past).when(retry).thenRejects('payment_in_progress');
    const declined: CheckoutSessionEvent = {
      type: 'checkout_session.payment_updated',
      data: { id: 'cs_1', payment_status: 'unpaid', collection: 'col_1', subscription: 'sub_1', payment_method: null, last_payment: { status: 'declined', started_at: later(1000).toISOString(), message: 'The card was declined.', failure_code: 'card_declined', decline_code: 'generic_decline', additional_data: null }, updated_at: later(1500).toISOString(), meta_data: {} },
    };
    given(checkoutSessionDecider, [...past, declined]).when(retry).then(([e]) => expect(e).toMatchObject({ type: 'checkout_payment.retried', data: { last_payment: { status: 'in_progress' } } }));
    const paid: CheckoutSessionEvent = { ...declined, data: { ...declined.data, payment_status: 'paid', last_payment: { ...declined.data.last_payment, status: 'paid' } } } as CheckoutSessionEvent;
    given(checkoutSessionDecider, [...past, paid]).when(retry).thenRejects('checkout_session_complete');
  });

  test('expire: only an open session, only at its expires_at (a deadline for another time decides nothing)', () => {
    const expire = (expected: string | null, at: Date): CheckoutSessionCommand => ({ type: 'ExpireCheckoutSession', owner, sessionId: 'cs_1', expected, now: at });
    given(checkoutSessionDecider, created()).when(expire('2026-11-24T10:00:00.000Z', later(24 * 3_600_000))).then([{ type: 'checkout_session.expired', data: { id: 'cs_1', expired_at: '2026-11-24T10:00:00.000Z', collection: null, subscription: null, meta_data: {} } }]);
    given(checkoutSessionDecider, created()).when(expire('2026-11-24T10:00:00.000Z', later(1000))).then([]);
    given(checkoutSessionDecider, created()).when(expire(null, later(1000))).then(([e]) => expect(e.type).toBe('checkout_session.expired'));
  });

  describe('a completed session never paid', () => {
    const lp = (status: string, at = later(1000)) => ({ status, started_at: at.toISOString(), message: status === 'declined' ? 'The card was declined.' : null, failure_code: status === 'declined' ? 'card_declined' : null, decline_code: null, additional_data: null }) as never;
    const completed: CheckoutSessionEvent[] = [
      ...created(),
      { type: 'checkout_session.completed', data: { id: 'cs_1', customer: 'cus_1', subscription: 'sub_1', collection: null, payment_status: 'unpaid', completed_at: later(1000).toISOString(), last_payment: lp('in_progress'), meta_data: {} } },
    ];
    const outcome = (payment_status: 'unpaid' | 'processing' | 'paid', status: string): CheckoutSessionEvent => ({
      type: 'checkout_session.payment_updated',
      data: { id: 'cs_1', payment_status, collection: 'col_1', subscription: 'sub_1', payment_method: null, last_payment: lp(status), updated_at: later(1500).toISOString(), meta_data: {} },
    });
    const expire = (at: Date): CheckoutSessionCommand => ({ type: 'ExpireCheckoutSession', owner, sessionId: 'cs_1', expected: '2026-11-24T10:00:00.000Z', now: at });
    const fields = (events: CheckoutSessionEvent[]) => fold(checkoutSessionDecider as never, events) as { fields: never };

    test('declined and never retried: at expires_at it expires, naming the collection to void and the subscription to expire', () => {
      const declined = [...completed, outcome('unpaid', 'declined')];
      expect(checkoutSessionDeadline((fields(declined) as { fields: Parameters<typeof checkoutSessionDeadline>[0] }).fields)).toEqual({ kind: 'expire', at: '2026-11-24T10:00:00.000Z' });
      given(checkoutSessionDecider, declined).when(expire(later(1000))).then([]);
      given(checkoutSessionDecider, declined)
        .when(expire(later(24 * 3_600_000)))
        .then([{ type: 'checkout_session.expired', data: { id: 'cs_1', expired_at: '2026-11-24T10:00:00.000Z', collection: 'col_1', subscription: 'sub_1', meta_data: {} } }]);
      // Past expires_at the page can no longer retry.
      given(checkoutSessionDecider, declined).when({ type: 'StartPaymentRetry', owner, sessionId: 'cs_1', method: card, now: later(24 * 3_600_000 + 1) }).thenRejects('checkout_session_expired');
      // The API's expire operation still only expires an open session.
      given(checkoutSessionDecider, declined).when({ type: 'ExpireCheckoutSession', owner, sessionId: 'cs_1', expected: null, now: later(2000) }).thenRejects('invalid_state');
    });

    test('paid, or waiting for the bank, or an attempt in flight: nothing expires', () => {
      const paid = [...completed, outcome('paid', 'paid')];
      expect(checkoutSessionDeadline((fields(paid) as { fields: Parameters<typeof checkoutSessionDeadline>[0] }).fields)).toBeNull();
      given(checkoutSessionDecider, paid).when(expire(later(24 * 3_600_000))).then([]);
      const processing = [...completed, outcome('processing', 'processing')];
      expect(checkoutSessionDeadline((fields(processing) as { fields: Parameters<typeof checkoutSessionDeadline>[0] }).fields)).toBeNull();
      given(checkoutSessionDecider, processing).when(expire(later(24 * 3_600_000))).then([]);
      const inFlight = [...completed, outcome('unpaid', 'declined'), { type: 'checkout_payment.retried', data: { id: 'cs_1', last_payment: lp('in_progress', later(24 * 3_600_000 - 1000)) } } as CheckoutSessionEvent];
      given(checkoutSessionDecider, inFlight).when(expire(later(24 * 3_600_000))).then([]);
    });

    test('the bank refuses an asynchronous payment: unpaid again with the reason; a late refusal after expiry changes nothing', () => {
      const processing = [...completed, outcome('processing', 'processing')];
      const refused: CheckoutSessionCommand = {
        type: 'RecordPaymentOutcome',
        owner,
        sessionId: 'cs_1',
        outcome: { status: 'declined', collection: 'col_1', subscription: 'sub_1', payment_method: null, message: 'The bank rejected the payment.', failure_code: 'payment_rejected', decline_code: null, additional_data: null },
        now: later(5000),
      };
      given(checkoutSessionDecider, processing).when(refused).then(([e]) => expect(e).toMatchObject({ type: 'checkout_session.payment_updated', data: { payment_status: 'unpaid', last_payment: { status: 'declined', message: 'The bank rejected the payment.' } } }));
      const expiredAfter = [...completed, outcome('unpaid', 'declined'), ...checkoutSessionDecider.decide(expire(later(24 * 3_600_000)), fields([...completed, outcome('unpaid', 'declined')]) as never)];
      given(checkoutSessionDecider, expiredAfter).when(refused).then([]);
    });
  });
});

describe('checkout session decider: identification', () => {
  const sent: CheckoutSessionEvent = { type: 'checkout_signin.code_sent', data: { id: 'cs_1', email: 'a@b.co', customer: 'cus_9', code_hash: 'h1', expires_at: later(600_000).toISOString(), sent_at: now.toISOString() } };
  const verify = (hash: string, at = later(1000)): CheckoutSessionCommand => ({ type: 'VerifyEmailCode', owner, sessionId: 'cs_1', codeHash: hash, now: at });

  test('the right code identifies the customer; a wrong one is counted; five wrong lock it; an old one expires', () => {
    const anon = created({ customer: null });
    given(checkoutSessionDecider, [...anon, sent]).when(verify('h1')).then(([e]) => expect(e).toMatchObject({ type: 'checkout_session.updated', data: { changes: { customer: 'cus_9' } } }));
    given(checkoutSessionDecider, [...anon, sent]).when(verify('bad')).then([{ type: 'checkout_signin.code_failed', data: { id: 'cs_1', attempts: 1 } }]);
    const five = [1, 2, 3, 4, 5].map((n): CheckoutSessionEvent => ({ type: 'checkout_signin.code_failed', data: { id: 'cs_1', attempts: n } }));
    given(checkoutSessionDecider, [...anon, sent, ...five]).when(verify('h1')).thenRejects('email_code_attempts_exceeded');
    given(checkoutSessionDecider, [...anon, sent]).when(verify('h1', later(601_000))).thenRejects('email_code_expired');
    given(checkoutSessionDecider, anon).when(verify('h1')).thenRejects('email_code_invalid');
  });
});
