import { given } from '#shared/testing/given.js';
import { type CouponEvent, couponCodeDecider, couponDecider } from './coupon.decider.js';

const owner = { accountId: 'acct_1', mode: 'test' as const };
const now = new Date('2026-11-23T10:00:00.000Z');
const created = (over: Partial<CouponEvent['data']> = {}): CouponEvent => ({
  type: 'coupon.created',
  data: {
    id: 'coupon_1', account_id: 'acct_1', is_test: true, created_at: now.toISOString(), code: 'WELCOME', name: null, amount: null, percent: '10', currency: null,
    duration_in_collections: 3, valid_from: null, valid_until: '2026-12-31T00:00:00.000Z', max_redemptions: 2, times_redeemed: 0, active: true, meta_data: {}, ...over,
  } as never,
});
const redeemed = (redemption: string, times: number): CouponEvent => ({ type: 'coupon.redeemed', data: { id: 'coupon_1', redemption, times_redeemed: times, redeemed_at: now.toISOString() } });
const redeem = (redemption: string, at = now, currency = 'COP') => ({ type: 'RedeemCoupon' as const, owner, couponId: 'coupon_1', redemption, currency, now: at });

describe('coupon decider', () => {
  test('create: a percent coupon with its limits', () => {
    given(couponDecider).when({ type: 'CreateCoupon', owner, couponId: 'coupon_1', input: { code: ' WELCOME ', percent: '10.0', duration_in_collections: 3, valid_until: '2026-12-31T00:00:00Z', max_redemptions: 2 }, now })
      .then([created()]);
  });

  test('create: exactly one of amount or percent; amount needs a currency and its decimals', () => {
    const create = (input: object) => given(couponDecider).when({ type: 'CreateCoupon', owner, couponId: 'coupon_1', input: { code: 'X', ...input } as never, now });
    create({}).thenRejects('parameter_invalid', 'amount');
    create({ amount: '1000', percent: '5' }).thenRejects('parameter_invalid', 'percent');
    create({ amount: '1000' }).thenRejects('parameter_missing', 'currency');
    create({ amount: '10.005', currency: 'COP' }).thenRejects('parameter_invalid', 'amount');
    create({ percent: '101' }).thenRejects('parameter_invalid', 'percent');
    create({ percent: '5', valid_until: '2026-01-01T00:00:00Z' }).thenRejects('parameter_invalid', 'valid_until');
    create({ amount: '5000', currency: 'cop' }).then((events) => expect(events[0].data).toMatchObject({ amount: '5000.00', currency: 'COP', percent: null }));
  });

  test('redeem: counted, idempotent per redemption, refused when used up', () => {
    given(couponDecider, [created()]).when(redeem('sub_a')).then([redeemed('sub_a', 1)]);
    given(couponDecider, [created(), redeemed('sub_a', 1)]).when(redeem('sub_a')).then([]);
    given(couponDecider, [created(), redeemed('sub_a', 1), redeemed('sub_b', 2)]).when(redeem('sub_c')).thenRejects('coupon_used_up');
  });

  test('redeem: refused outside the validity dates, when inactive or deleted, and in another currency', () => {
    given(couponDecider, [created()]).when(redeem('sub_a', new Date('2027-01-01T00:00:00Z'))).thenRejects('coupon_expired');
    given(couponDecider, [created({ valid_from: '2026-12-01T00:00:00.000Z' } as never)]).when(redeem('sub_a')).thenRejects('coupon_invalid');
    given(couponDecider, [created(), { type: 'coupon.updated', data: { id: 'coupon_1', changes: { active: false } } }]).when(redeem('sub_a')).thenRejects('coupon_invalid');
    given(couponDecider, [created({ amount: '5000.00', percent: null, currency: 'COP' } as never)]).when(redeem('sub_a', now, 'USD')).thenRejects('coupon_invalid');
    given(couponDecider, [created(), { type: 'coupon.deleted', data: { id: 'coupon_1', deleted_at: now.toISOString() } }]).when(redeem('sub_a')).thenRejects('resource_missing');
  });

  test('a checkout session reserves its redemption when paying starts: paid → redeemed; expired unpaid → given back, the next session can redeem', () => {
    const one = created({ max_redemptions: 1 } as never);
    const reserve = (redemption: string) => ({ type: 'ReserveCouponRedemption' as const, owner, couponId: 'coupon_1', redemption, currency: 'COP', now });
    const releaseReservation = (redemption: string) => ({ type: 'ReleaseCouponReservation' as const, owner, couponId: 'coupon_1', redemption, now });
    const reserved = (redemption: string): CouponEvent => ({ type: 'coupon_redemption.reserved', data: { id: 'coupon_1', redemption, reserved_at: now.toISOString() } });
    const released = (redemption: string): CouponEvent => ({ type: 'coupon_redemption.released', data: { id: 'coupon_1', redemption, released_at: now.toISOString() } });
    given(couponDecider, [one]).when(reserve('cs_a')).then([reserved('cs_a')]);
    given(couponDecider, [one, reserved('cs_a')]).when(reserve('cs_a')).then([]);
    // Held: another session (or a subscription) cannot take the last redemption meanwhile.
    given(couponDecider, [one, reserved('cs_a')]).when(reserve('cs_b')).thenRejects('coupon_used_up');
    given(couponDecider, [one, reserved('cs_a')]).when(redeem('sub_x')).thenRejects('coupon_used_up');
    // Paid: the reservation becomes the redemption (times_redeemed 1), even once the coupon is deactivated or deleted.
    given(couponDecider, [one, reserved('cs_a')]).when(redeem('cs_a')).then([redeemed('cs_a', 1)]);
    given(couponDecider, [one, reserved('cs_a'), { type: 'coupon.deleted', data: { id: 'coupon_1', deleted_at: now.toISOString() } }]).when(redeem('cs_a')).then([redeemed('cs_a', 1)]);
    given(couponDecider, [one, reserved('cs_a'), redeemed('cs_a', 1)]).when(releaseReservation('cs_a')).then([]);
    // Expired unpaid: given back; times_redeemed never moved; the next session redeems.
    given(couponDecider, [one, reserved('cs_a')]).when(releaseReservation('cs_a')).then([released('cs_a')]);
    given(couponDecider, [one, reserved('cs_a'), released('cs_a')]).when(reserve('cs_b')).then([reserved('cs_b')]);
    given(couponDecider, [one, reserved('cs_a'), released('cs_a')]).when(releaseReservation('cs_a')).then([]);
    // max_redemptions never below what is redeemed and held.
    given(couponDecider, [created(), redeemed('sub_a', 1), reserved('cs_a')]).when({ type: 'UpdateCoupon', owner, couponId: 'coupon_1', changes: { max_redemptions: 1 }, now }).thenRejects('parameter_invalid', 'max_redemptions');
  });

  test('release gives a redemption back', () => {
    given(couponDecider, [created(), redeemed('sub_a', 1)]).when({ type: 'ReleaseCouponRedemption', owner, couponId: 'coupon_1', redemption: 'sub_a', now })
      .then([{ type: 'coupon.redemption_released', data: { id: 'coupon_1', redemption: 'sub_a', times_redeemed: 0 } }]);
  });

  test('update: max_redemptions never below what was redeemed; code and amount cannot change', () => {
    given(couponDecider, [created(), redeemed('sub_a', 1), redeemed('sub_b', 2)]).when({ type: 'UpdateCoupon', owner, couponId: 'coupon_1', changes: { max_redemptions: 1 }, now }).thenRejects('parameter_invalid', 'max_redemptions');
    given(couponDecider, [created()]).when({ type: 'UpdateCoupon', owner, couponId: 'coupon_1', changes: { max_redemptions: 5, name: 'Bienvenida' }, now })
      .then([{ type: 'coupon.updated', data: { id: 'coupon_1', changes: { max_redemptions: 5, name: 'Bienvenida' } } }]);
    given(couponDecider, [created()]).when({ type: 'UpdateCoupon', owner: { ...owner, mode: 'live' }, couponId: 'coupon_1', changes: { name: 'x' }, now }).thenRejects('resource_missing');
  });

  test('code claim: one coupon per code', () => {
    given(couponCodeDecider).when({ type: 'ClaimCouponCode', couponId: 'coupon_1', code: 'A' }).then([{ type: 'coupon_code.claimed', data: { coupon_id: 'coupon_1' } }]);
    given(couponCodeDecider, [{ type: 'coupon_code.claimed', data: { coupon_id: 'coupon_1' } }]).when({ type: 'ClaimCouponCode', couponId: 'coupon_2', code: 'A' }).thenRejects('resource_already_exists', 'code');
  });
});
