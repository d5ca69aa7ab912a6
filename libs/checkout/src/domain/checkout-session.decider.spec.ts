import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { priceSnapshot } from '#collections/domain/testing/price-snapshot.js';
import type { LineInput } from '#collections/domain/pricing.js';
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
const source = { payment_method: null, gateway: 'gateway_a', type: 'card', token: 'simtok_approve_x', details: {}, save_as: null, checkout_session: 'cs_1' };
/** What an attempt will use, recorded before the gateway is called. */
const plan = (n: string) => ({ subscription: `sub_${n}`, collection: `col_${n}`, transaction: `tx_${n}`, charge: `ch_${n}`, source, amount: '49900.00' });
const start = (over: object = {}): CheckoutSessionCommand => ({ type: 'StartCheckoutPayment', owner, sessionId: 'cs_1', details, method: card, attempt: plan('1'), now: later(1000), ...over });

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

describe('checkout session decider: paying (the gateway first; open → complete when paid, in the spec order; open → expired at expires_at)', () => {
  type Fields = Parameters<typeof checkoutSessionDeadline>[0];
  const fieldsOf = (events: CheckoutSessionEvent[]) => (fold(checkoutSessionDecider as never, events) as { fields: Fields }).fields;
  const decideOn = (events: CheckoutSessionEvent[], command: CheckoutSessionCommand) => [...events, ...checkoutSessionDecider.decide(command, fold(checkoutSessionDecider as never, events) as never)];
  const outcome = (status: 'paid' | 'declined' | 'processing' | 'saved', at = later(1500), over: object = {}): CheckoutSessionCommand => ({
    type: 'RecordPaymentOutcome',
    owner,
    sessionId: 'cs_1',
    outcome: {
      status,
      collection: status === 'declined' ? null : 'col_1',
      subscription: status === 'declined' ? null : 'sub_1',
      payment_method: status === 'paid' || status === 'saved' ? 'pm_1' : null,
      message: status === 'declined' ? 'The card was declined.' : null,
      failure_code: status === 'declined' ? 'card_declined' : null,
      decline_code: status === 'declined' ? 'generic_decline' : null,
      additional_data: status === 'processing' ? { type: 'redirect', redirect_url: 'http://bank' } : null,
      ...over,
    },
    now: at,
  });
  const retry = (at = later(2000), attempt = plan('2')): CheckoutSessionCommand => ({ type: 'StartPaymentRetry', owner, sessionId: 'cs_1', method: card, attempt, now: at });
  const finish = (at = later(1600)): CheckoutSessionCommand => ({ type: 'FinishAttempt', owner, sessionId: 'cs_1', now: at });
  const expire = (expected: string | null, at: Date): CheckoutSessionCommand => ({ type: 'ExpireCheckoutSession', owner, sessionId: 'cs_1', expected, now: at });
  const EXPIRES = '2026-11-24T10:00:00.000Z';
  const atExpiry = later(24 * 3_600_000);
  const started = () => decideOn(created(), start());
  const attemptOf = (events: CheckoutSessionEvent[]) => (fold(checkoutSessionDecider as never, events) as { attempt: unknown }).attempt;

  test('paying records the attempt before the gateway is called (internal event): its ids and source, a token; the session stays open and names nothing yet', () => {
    given(checkoutSessionDecider, created()).when(start()).then((events) => {
      expect(events.map((e) => e.type)).toEqual(['checkout_payment.started']);
      expect(events[0].data).toMatchObject({ customer: 'cus_1', subscription: null, collection: null, last_payment: { status: 'in_progress' }, attempt: plan('1') });
    });
    expect(fieldsOf(started())).toMatchObject({ status: 'open', payment_status: 'unpaid', subscription: null, collection: null, completed_at: null, _attempt_pending: true });
    expect(attemptOf(started())).toEqual({ subscription: 'sub_1', collection: 'col_1', transaction: 'tx_1', charges: [{ id: 'ch_1', try: 1 }], source, amount: '49900.00', status: 'in_progress', finished: false });
    // Unanswered a minute after it started, the deadline resumes it.
    expect(checkoutSessionDeadline(fieldsOf(started()))).toEqual({ kind: 'expire', at: later(61_000).toISOString() });
  });

  test('one attempt at a time (another tab is refused; an unanswered attempt, however old, until it is resumed); an expired, unidentified or not allowed payment is refused', () => {
    given(checkoutSessionDecider, started()).when(start({ now: later(1500) })).thenRejects('payment_in_progress');
    given(checkoutSessionDecider, started()).when(retry(later(1500))).thenRejects('payment_in_progress');
    given(checkoutSessionDecider, started()).when(retry(later(3_600_000))).thenRejects('payment_in_progress');
    given(checkoutSessionDecider, created()).when(start({ now: later(25 * 3_600_000) })).thenRejects('checkout_session_expired');
    given(checkoutSessionDecider, created({ customer: null })).when(start()).thenRejects('customer_required');
    given(checkoutSessionDecider, created({ payment_methods: { gateway_a: ['pse'] } })).when(start()).thenRejects('payment_method_not_allowed');
  });

  test('a subscription session that names no methods takes only those that renew by themselves (card, wallets); one that names others takes them', () => {
    const pse = { gateway: 'gateway_a', type: 'pse' };
    given(checkoutSessionDecider, created()).when(start({ method: pse })).thenRejects('payment_method_not_allowed');
    given(checkoutSessionDecider, created()).when(start({ method: { gateway: 'gateway_b', type: 'efecty' } })).thenRejects('payment_method_not_allowed');
    given(checkoutSessionDecider, created()).when(start({ method: { gateway: 'gateway_a', type: 'wallet_a' } })).then(([e]) => expect(e.type).toBe('checkout_payment.started'));
    given(checkoutSessionDecider, created({ payment_methods: { gateway_a: ['card', 'pse'] } })).when(start({ method: pse })).then(([e]) => expect(e.type).toBe('checkout_payment.started'));
    given(checkoutSessionDecider, created({ mode: 'payment', lines: [fee] })).when(start({ method: pse })).then(([e]) => expect(e.type).toBe('checkout_payment.started'));
  });

  test('a technical failure: the second charge id is recorded before the second try', () => {
    const retryCharge = (id: string): CheckoutSessionCommand => ({ type: 'RetryAttemptCharge', owner, sessionId: 'cs_1', chargeId: id, now: later(1200) });
    given(checkoutSessionDecider, started()).when(retryCharge('ch_1b')).then([{ type: 'checkout_payment.charge_retried', data: { id: 'cs_1', charge: 'ch_1b', try: 2 } }]);
    given(checkoutSessionDecider, created()).when(retryCharge('ch_1b')).thenRejects('invalid_state');
  });

  test('approved: open → complete first (payment_status paid, the attempt`s subscription and collection), then the attempt finishes', () => {
    given(checkoutSessionDecider, started())
      .when(outcome('paid'))
      .then([
        {
          type: 'checkout_session.completed',
          data: {
            id: 'cs_1',
            customer: 'cus_1',
            subscription: 'sub_1',
            collection: 'col_1',
            payment_status: 'paid',
            payment_method: 'pm_1',
            completed_at: later(1500).toISOString(),
            last_payment: { status: 'paid', started_at: later(1000).toISOString(), message: null, failure_code: null, decline_code: null, additional_data: null },
            meta_data: {},
          },
        },
      ]);
    const paid = decideOn(started(), outcome('paid'));
    expect(fieldsOf(paid)).toMatchObject({ status: 'complete', payment_status: 'paid', subscription: 'sub_1', collection: 'col_1', payment_method: 'pm_1' });
    // The same answer recorded again (a resumed attempt, the collection's follow-up): nothing.
    given(checkoutSessionDecider, paid).when(outcome('paid', later(1600))).then([]);
    // Not made yet: the deadline makes it a minute later if this process stops now.
    expect(checkoutSessionDeadline(fieldsOf(paid))).toEqual({ kind: 'expire', at: later(61_500).toISOString() });
    given(checkoutSessionDecider, paid).when(finish()).then([{ type: 'checkout_payment.finished', data: { id: 'cs_1', finished_at: later(1600).toISOString() } }]);
    const finished = decideOn(paid, finish());
    given(checkoutSessionDecider, finished).when(finish(later(1700))).then([]);
    given(checkoutSessionDecider, started()).when(finish()).then([]);
    // complete is final: no deadline, and nothing expires it.
    expect(checkoutSessionDeadline(fieldsOf(finished))).toBeNull();
    given(checkoutSessionDecider, finished).when(expire(EXPIRES, atExpiry)).then([]);
    given(checkoutSessionDecider, finished).when(expire(null, later(2000))).thenRejects('invalid_state');
    given(checkoutSessionDecider, finished).when(retry()).thenRejects('checkout_session_complete');
  });

  test('setup: the method saved completes the session with no_payment_required', () => {
    const setup = decideOn(created({ mode: 'setup', lines: [] }), start({ attempt: null }));
    given(checkoutSessionDecider, setup).when(outcome('saved')).then(([e]) => expect(e).toMatchObject({ type: 'checkout_session.completed', data: { payment_status: 'no_payment_required', payment_method: 'pm_1' } }));
  });

  test('declined: only the session records it (checkout_session.payment_failed, with the reason), nothing was made; it stays open and a retry (new ids) paid completes it', () => {
    given(checkoutSessionDecider, started())
      .when(outcome('declined'))
      .then([
        {
          type: 'checkout_session.payment_failed',
          data: {
            id: 'cs_1',
            payment_status: 'unpaid',
            payment_method: null,
            last_payment: { status: 'declined', started_at: later(1000).toISOString(), message: 'The card was declined.', failure_code: 'card_declined', decline_code: 'generic_decline', additional_data: null },
            updated_at: later(1500).toISOString(),
            meta_data: {},
          },
        },
      ]);
    const declined = decideOn(started(), outcome('declined'));
    expect(fieldsOf(declined)).toMatchObject({ status: 'open', payment_status: 'unpaid', subscription: null, collection: null, last_payment: { status: 'declined', decline_code: 'generic_decline' }, _attempt_pending: false });
    expect(checkoutSessionDeadline(fieldsOf(declined))).toEqual({ kind: 'expire', at: EXPIRES });
    // Answered once: a second answer to the same attempt (a resume racing the request) decides nothing.
    given(checkoutSessionDecider, declined).when(outcome('declined', later(1600))).then([]);
    given(checkoutSessionDecider, declined).when(retry()).then(([e]) => expect(e).toMatchObject({ type: 'checkout_payment.retried', data: { last_payment: { status: 'in_progress' }, attempt: plan('2') } }));
    // Another tab that still saw the session unpaid starts a retry, never a second first attempt.
    given(checkoutSessionDecider, declined).when(start({ now: later(2000), attempt: plan('3') })).then(([e]) => expect(e.type).toBe('checkout_payment.retried'));
    const retried = decideOn(declined, retry());
    given(checkoutSessionDecider, retried).when(retry(later(2500))).thenRejects('payment_in_progress');
    given(checkoutSessionDecider, retried)
      .when(outcome('paid', later(3000), { subscription: 'sub_2', collection: 'col_2' }))
      .then(([e]) => expect(e).toMatchObject({ type: 'checkout_session.completed', data: { payment_status: 'paid', subscription: 'sub_2', collection: 'col_2' } }));
  });

  test('declined and never paid: at expires_at open → expired, with nothing to void (no attempt made anything)', () => {
    const declined = decideOn(started(), outcome('declined'));
    given(checkoutSessionDecider, declined).when(expire(EXPIRES, later(3000))).then([]);
    given(checkoutSessionDecider, declined).when(expire(EXPIRES, atExpiry)).then([{ type: 'checkout_session.expired', data: { id: 'cs_1', expired_at: EXPIRES, collection: null, subscription: null, meta_data: {} } }]);
    given(checkoutSessionDecider, declined).when(retry(later(24 * 3_600_000 + 1))).thenRejects('checkout_session_expired');
    const expired = decideOn(declined, expire(EXPIRES, atExpiry));
    given(checkoutSessionDecider, expired).when(outcome('declined', later(24 * 3_600_000 + 5))).then([]);
    given(checkoutSessionDecider, expired).when(expire(null, atExpiry)).thenRejects('invalid_state');
  });

  test('an open session without an attempt: the deadline at expires_at only; the API expire at once', () => {
    given(checkoutSessionDecider, created()).when(expire(EXPIRES, atExpiry)).then([{ type: 'checkout_session.expired', data: { id: 'cs_1', expired_at: EXPIRES, collection: null, subscription: null, meta_data: {} } }]);
    given(checkoutSessionDecider, created()).when(expire(EXPIRES, later(1000))).then([]);
    given(checkoutSessionDecider, created()).when(expire(null, later(1000))).then(([e]) => expect(e.type).toBe('checkout_session.expired'));
  });

  test('an attempt without a recorded answer is never expired (it may have been approved): it is resumed first', () => {
    const unanswered = decideOn(decideOn(started(), outcome('declined')), retry(later(24 * 3_600_000 - 1000)));
    given(checkoutSessionDecider, unanswered).when(expire(EXPIRES, atExpiry)).then([]);
    given(checkoutSessionDecider, unanswered).when(expire(EXPIRES, later(48 * 3_600_000))).then([]);
    given(checkoutSessionDecider, unanswered).when(expire(null, atExpiry)).thenRejects('payment_in_progress');
    expect(checkoutSessionDeadline(fieldsOf(unanswered))).toEqual({ kind: 'expire', at: EXPIRES });
    // Its answer recorded (declined): the deadline expires it.
    const answered = decideOn(unanswered, outcome('declined', atExpiry));
    given(checkoutSessionDecider, answered).when(expire(EXPIRES, atExpiry)).then(([e]) => expect(e.type).toBe('checkout_session.expired'));
  });

  test('awaiting a bank or a transfer: complete with payment_status processing; settled it is paid, refused it stays complete and what it left ends at expires_at', () => {
    const processing = decideOn(started(), outcome('processing'));
    given(checkoutSessionDecider, started()).when(outcome('processing')).then(([e]) => expect(e).toMatchObject({ type: 'checkout_session.completed', data: { payment_status: 'processing', subscription: 'sub_1', collection: 'col_1', last_payment: { status: 'processing' } } }));
    const made = decideOn(processing, finish());
    expect(fieldsOf(made)).toMatchObject({ status: 'complete', payment_status: 'processing', last_payment: { status: 'processing', additional_data: { type: 'redirect' } } });
    expect(checkoutSessionDeadline(fieldsOf(made))).toBeNull();
    given(checkoutSessionDecider, made).when(expire(null, later(2000))).thenRejects('invalid_state');
    // Settled by the bank: paid (internal; the collection's events say it in the feed).
    given(checkoutSessionDecider, made).when(outcome('paid', later(5000))).then(([e]) => expect(e).toMatchObject({ type: 'checkout_payment.updated', data: { payment_status: 'paid' } }));
    const refused = decideOn(made, outcome('declined', later(5000), { message: 'The bank rejected the payment.', failure_code: 'payment_not_completed', decline_code: null, collection: 'col_1', subscription: 'sub_1' }));
    expect(fieldsOf(refused)).toMatchObject({ status: 'complete', payment_status: 'unpaid', last_payment: { status: 'declined', failure_code: 'payment_not_completed' } });
    expect(checkoutSessionDeadline(fieldsOf(refused))).toEqual({ kind: 'expire', at: EXPIRES });
    given(checkoutSessionDecider, refused).when(expire(EXPIRES, later(6000))).then([]);
    given(checkoutSessionDecider, refused).when(expire(EXPIRES, atExpiry)).then([{ type: 'checkout_payment.lapsed', data: { id: 'cs_1', lapsed_at: EXPIRES, collection: 'col_1', subscription: 'sub_1' } }]);
    const lapsed = decideOn(refused, expire(EXPIRES, atExpiry));
    expect(fieldsOf(lapsed)).toMatchObject({ status: 'complete' });
    expect(checkoutSessionDeadline(fieldsOf(lapsed))).toBeNull();
  });

  test('a session completed unpaid under the earlier rule: at expires_at what it left ends, the session stays complete', () => {
    const lp = (status: string) => ({ status, started_at: later(1000).toISOString(), message: null, failure_code: null, decline_code: null, additional_data: null }) as never;
    const legacy: CheckoutSessionEvent[] = [
      ...created(),
      { type: 'checkout_session.completed', data: { id: 'cs_1', customer: 'cus_1', subscription: 'sub_1', collection: null, payment_status: 'unpaid', completed_at: later(1000).toISOString(), last_payment: lp('in_progress'), meta_data: {} } },
      { type: 'checkout_session.payment_updated', data: { id: 'cs_1', payment_status: 'unpaid', collection: 'col_1', subscription: 'sub_1', payment_method: null, last_payment: lp('declined'), updated_at: later(1500).toISOString(), meta_data: {} } },
    ];
    expect(checkoutSessionDeadline(fieldsOf(legacy))).toEqual({ kind: 'expire', at: EXPIRES });
    given(checkoutSessionDecider, legacy).when(expire(EXPIRES, atExpiry)).then([{ type: 'checkout_payment.lapsed', data: { id: 'cs_1', lapsed_at: EXPIRES, collection: 'col_1', subscription: 'sub_1' } }]);
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
