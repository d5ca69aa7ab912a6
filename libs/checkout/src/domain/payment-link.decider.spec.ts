import { given } from '#shared/testing/given.js';
import { priceSnapshot } from '#collections/domain/testing/price-snapshot.js';
import { type LinkItem, type PaymentLinkCommand, type PaymentLinkEvent, paymentLinkDecider } from './payment-link.decider.js';

const owner = { accountId: 'acct_1', mode: 'test' as const };
const now = new Date('2026-11-23T10:00:00.000Z');
const item = (over: object = {}, quantity = 1): LinkItem => ({ price: priceSnapshot('49900', over), product: { id: 'prod_1', name: 'Plan' }, quantity });
const oneTime = item({ id: 'price_fee', type: 'one_time', billing_period: null, billing_interval: null });
const ntp = (id: string) => item({ id, type: 'one_time', pricing_model: 'ntp', billing_period: null, billing_interval: null, ntp_pricing: { min_amount: '1000.00', max_amount: null, suggested_amount: null } });
const create = (over: Partial<Extract<PaymentLinkCommand, { type: 'CreatePaymentLink' }>> = {}): PaymentLinkCommand => ({
  type: 'CreatePaymentLink', owner, linkId: 'pl_1', url: 'http://x/checkout/pl/pl_1', items: [item()], usageLimit: undefined, ctaText: undefined, active: undefined, settings: {}, metaData: undefined, now, ...over,
});
const createdEvents = (over: Partial<Extract<PaymentLinkCommand, { type: 'CreatePaymentLink' }>> = {}) => paymentLinkDecider.decide(create(over), paymentLinkDecider.initialState);
const use = (sessionId: string): PaymentLinkCommand => ({ type: 'UsePaymentLink', owner, linkId: 'pl_1', sessionId, now });
const reserve = (sessionId: string): PaymentLinkCommand => ({ type: 'ReservePaymentLinkUse', owner, linkId: 'pl_1', sessionId, now });
const release = (sessionId: string): PaymentLinkCommand => ({ type: 'ReleasePaymentLinkUse', owner, linkId: 'pl_1', sessionId, now });
const used = (sessionId: string, times: number): PaymentLinkEvent => ({ type: 'payment_link.used', data: { id: 'pl_1', checkout_session: sessionId, times_used: times, used_at: now.toISOString() } });
const reserved = (sessionId: string): PaymentLinkEvent => ({ type: 'payment_link_use.reserved', data: { id: 'pl_1', checkout_session: sessionId, reserved_at: now.toISOString() } });
const released = (sessionId: string): PaymentLinkEvent => ({ type: 'payment_link_use.released', data: { id: 'pl_1', checkout_session: sessionId, released_at: now.toISOString() } });

describe('payment link decider', () => {
  test('recurring prices → subscription mode; only one-time → payment mode; cta_text defaults by mode', () => {
    given(paymentLinkDecider).when(create()).then(([e]) => expect(e.data).toMatchObject({ mode: 'subscription', cta_text: 'Suscribirse', active: true, times_used: 0, usage_limit: null }));
    given(paymentLinkDecider).when(create({ items: [oneTime] })).then(([e]) => expect(e.data).toMatchObject({ mode: 'payment', cta_text: 'Pagar' }));
  });

  test('the spec rules', () => {
    given(paymentLinkDecider).when(create({ items: [oneTime], settings: { subscription_settings: { duration: 2 } } })).thenRejects('parameter_invalid', 'subscription_settings');
    given(paymentLinkDecider).when(create({ items: [item(), item({ id: 'price_w', billing_period: 'week' })] })).thenRejects('parameter_invalid', 'items');
    given(paymentLinkDecider).when(create({ items: [ntp('a'), ntp('b')] })).thenRejects('parameter_invalid', 'items');
    given(paymentLinkDecider).when(create({ items: [item(), ntp('a')], settings: { subscription_settings: { trial_days: 3 } } })).thenRejects('parameter_invalid', 'subscription_settings[trial_days]');
    given(paymentLinkDecider).when(create({ ctaText: 'Comprar' })).thenRejects('parameter_invalid', 'cta_text');
    given(paymentLinkDecider).when(create({ usageLimit: 0 })).thenRejects('parameter_invalid', 'usage_limit');
    given(paymentLinkDecider).when(create({ items: [] })).thenRejects('parameter_missing', 'items');
  });

  test('uses are counted once per session and stop at usage_limit; a deactivated link cannot be used', () => {
    const past = createdEvents({ usageLimit: 2 });
    given(paymentLinkDecider, past).when(reserve('cs_a')).then([reserved('cs_a')]);
    given(paymentLinkDecider, [...past, reserved('cs_a')]).when(reserve('cs_a')).then([]);
    given(paymentLinkDecider, [...past, reserved('cs_a')]).when(use('cs_a')).then([used('cs_a', 1)]);
    given(paymentLinkDecider, [...past, reserved('cs_a'), used('cs_a', 1)]).when(use('cs_a')).then([]);
    given(paymentLinkDecider, [...past, reserved('cs_a'), used('cs_a', 1), reserved('cs_b'), used('cs_b', 2)]).when(reserve('cs_c')).thenRejects('payment_link_used_up');
    const off: PaymentLinkEvent = { type: 'payment_link.updated', data: { id: 'pl_1', changes: { active: false } } };
    given(paymentLinkDecider, [...past, off]).when(reserve('cs_a')).thenRejects('payment_link_inactive');
  });

  test('limit 1: a declined attempt holds the use while its session is open; paid → used up; the session expiring unpaid gives it back', () => {
    const past = createdEvents({ usageLimit: 1 });
    // Declined in cs_a (nothing paid): the use stays reserved, a second payer is refused, cs_a itself may pay again.
    given(paymentLinkDecider, [...past, reserved('cs_a')]).when(reserve('cs_b')).thenRejects('payment_link_used_up');
    given(paymentLinkDecider, [...past, reserved('cs_a')]).when(reserve('cs_a')).then([]);
    // Approved on the retry: the reservation becomes the use (times_used 1), the link is used up and stays so.
    given(paymentLinkDecider, [...past, reserved('cs_a')]).when(use('cs_a')).then([used('cs_a', 1)]);
    given(paymentLinkDecider, [...past, reserved('cs_a'), used('cs_a', 1)]).when(reserve('cs_b')).thenRejects('payment_link_used_up');
    given(paymentLinkDecider, [...past, reserved('cs_a'), used('cs_a', 1)]).when(release('cs_a')).then([]);
    // cs_a expires unpaid: the reservation is given back and the next payer gets the use.
    given(paymentLinkDecider, [...past, reserved('cs_a')]).when(release('cs_a')).then([released('cs_a')]);
    given(paymentLinkDecider, [...past, reserved('cs_a'), released('cs_a')]).when(reserve('cs_b')).then([reserved('cs_b')]);
    given(paymentLinkDecider, [...past, reserved('cs_a'), released('cs_a')]).when(release('cs_a')).then([]);
    // usage_limit never below the uses made and held.
    given(paymentLinkDecider, [...createdEvents({ usageLimit: 3 }), reserved('cs_a'), used('cs_a', 1), reserved('cs_b')]).when({ type: 'UpdatePaymentLink', owner, linkId: 'pl_1', changes: { usage_limit: 1 }, now }).thenRejects('parameter_invalid', 'usage_limit');
  });

  test('update: deactivate, usage_limit never below the uses made, another account sees nothing', () => {
    const past = createdEvents();
    given(paymentLinkDecider, past).when({ type: 'UpdatePaymentLink', owner, linkId: 'pl_1', changes: { active: false }, now }).then([{ type: 'payment_link.updated', data: { id: 'pl_1', changes: { active: false } } }]);
    given(paymentLinkDecider, [...past, used('cs_a', 1), used('cs_b', 2)]).when({ type: 'UpdatePaymentLink', owner, linkId: 'pl_1', changes: { usage_limit: 1 }, now }).thenRejects('parameter_invalid', 'usage_limit');
    given(paymentLinkDecider, past).when({ type: 'UpdatePaymentLink', owner: { accountId: 'acct_2', mode: 'test' }, linkId: 'pl_1', changes: { active: false }, now }).thenRejects('resource_missing');
  });
});
