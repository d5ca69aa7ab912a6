import { Injectable } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import { ownedBy } from '#shared/owner.js';
import { type CouponFields, type CouponState, couponCodeDecider, couponCodeStream, couponDecider, couponStream, redeemRefusal } from '../domain/coupon.decider.js';

/** A discount as requests send it: a coupon `code` (its amount or percent then come from the coupon), or an ad-hoc amount/percent. */
export interface DiscountRequest {
  code: string;
  amount?: string | null;
  percent?: string | null;
  duration_in_collections?: number | null;
}

/**
 * A discount resolved from a coupon: the coupon's figures and the request's duration — none (every
 * cycle) when the request gives none, the spec's rule for `discounts: [{code, duration_in_collections}]`.
 */
export interface ResolvedDiscount {
  code: string;
  amount: string | null;
  percent: string | null;
  duration_in_collections: number | null;
  /** The coupon's own `duration_in_collections`: the duration of a code the customer types on a hosted page, where no request names one. */
  coupon_duration_in_collections: number | null;
  /** The coupon it comes from (null for an ad-hoc discount). */
  coupon: string | null;
}

/**
 * For checkout sessions, payment links and subscriptions: `discounts: [{code}]` → the coupon's
 * discount (checked valid now, in this currency, not used up), and the redemption counted when what
 * uses it is written. Reads the streams, not read models: exact right after a write.
 */
@Injectable()
export class CouponRedemptions {
  constructor(private readonly executor: AggregateExecutor) {}

  /** The coupon holding `code` in the caller's account and mode, or null. */
  async findByCode(ctx: CommandContext, code: string): Promise<{ id: string; fields: CouponFields; state: CouponState } | null> {
    if (typeof code !== 'string' || code.trim() === '') return null;
    const claim = await this.executor.load(couponCodeDecider, couponCodeStream(ctx, code));
    if (!claim.state.holder) return null;
    const { state } = await this.executor.load(couponDecider, couponStream(claim.state.holder));
    if (!ownedBy(state, ctx) || state.deleted) return null;
    return { id: claim.state.holder, fields: state.fields!, state };
  }

  /**
   * Resolves each entry: with `amount`/`percent` it is an ad-hoc discount (as before coupons
   * existed); with only `code` the coupon must exist and be redeemable now in `currency`.
   */
  async resolve(ctx: CommandContext, discounts: DiscountRequest[] | undefined, currency: string, now: Date, param = 'discounts'): Promise<ResolvedDiscount[]> {
    if (discounts === undefined || discounts === null) return [];
    if (!Array.isArray(discounts)) throw invalidParam(param, `${param} must be an array`);
    const out: ResolvedDiscount[] = [];
    for (const [i, d] of discounts.entries()) {
      const p = `${param}[${i}][code]`;
      const adHoc = (d.amount !== undefined && d.amount !== null) || (d.percent !== undefined && d.percent !== null);
      if (adHoc) {
        out.push({ code: d.code, amount: d.amount ?? null, percent: d.percent ?? null, duration_in_collections: d.duration_in_collections ?? null, coupon_duration_in_collections: null, coupon: null });
        continue;
      }
      if (typeof d.code !== 'string' || d.code.trim() === '') throw invalidParam(p, `${p} must name a coupon code`);
      const found = await this.findByCode(ctx, d.code);
      if (!found) throw new DomainError('coupon_invalid', `No such coupon code: '${d.code}'`, p, 400);
      const refusal = redeemRefusal(found.state, currency, now, p);
      if (refusal) throw refusal;
      if (out.some((o) => o.coupon === found.id)) throw invalidParam(p, `Coupon ${found.fields.code} is applied twice`);
      out.push({
        code: found.fields.code,
        amount: found.fields.amount,
        percent: found.fields.percent,
        duration_in_collections: d.duration_in_collections ?? null,
        coupon_duration_in_collections: found.fields.duration_in_collections,
        coupon: found.id,
      });
    }
    return out;
  }

  /**
   * Counts one redemption of each coupon for `redemption` (idempotent per redemption). All or
   * nothing: if one is refused (used up meanwhile), those already counted are given back.
   */
  redeem(ctx: CommandContext, discounts: Array<Pick<ResolvedDiscount, 'coupon'>>, redemption: string, currency: string, param = 'discounts'): Promise<string | null> {
    return this.eachCoupon(ctx, discounts, param, 'RedeemCoupon', redemption, currency, (done) => this.release(ctx, done, redemption));
  }

  /**
   * Reserves one redemption of each coupon for `redemption` (a checkout session whose customer starts
   * paying; idempotent per redemption), checked and counted against `max_redemptions` like a
   * redemption. All or nothing: if one is refused (used up meanwhile), those reserved are given back.
   */
  reserve(ctx: CommandContext, discounts: Array<Pick<ResolvedDiscount, 'coupon'>>, redemption: string, currency: string, param = 'discounts'): Promise<string | null> {
    return this.eachCoupon(ctx, discounts, param, 'ReserveCouponRedemption', redemption, currency, (done) => this.releaseReservations(ctx, done, redemption));
  }

  /** Runs `type` on each discount's coupon in turn; a refusal undoes (`undo`) those done and is rethrown naming `discounts[i][code]`. */
  private async eachCoupon(
    ctx: CommandContext,
    discounts: Array<Pick<ResolvedDiscount, 'coupon'>>,
    param: string,
    type: 'RedeemCoupon' | 'ReserveCouponRedemption',
    redemption: string,
    currency: string,
    undo: (done: string[]) => Promise<unknown>,
  ): Promise<string | null> {
    const done: string[] = [];
    let position: string | null = null;
    try {
      for (const [i, d] of discounts.entries()) {
        if (!d.coupon) continue;
        const couponId = d.coupon;
        const r = await this.executor
          .execute(couponDecider, couponStream(couponId), (now) => ({ type, owner: ctx, couponId, redemption, currency, now }), ctx)
          .catch((error) => {
            if (error instanceof DomainError && error.param === 'code') throw new DomainError(error.code, error.message, `${param}[${i}][code]`, error.status);
            throw error;
          });
        done.push(couponId);
        position = laterPosition(position, r.position);
      }
      return position;
    } catch (error) {
      await undo(done);
      throw error;
    }
  }

  /** What reserved them was paid: each reservation becomes a redemption (`coupon.redeemed`; never refused). */
  async confirm(ctx: CommandContext, couponIds: string[], redemption: string, currency: string): Promise<string | null> {
    let position: string | null = null;
    for (const couponId of couponIds) {
      const r = await this.executor.execute(couponDecider, couponStream(couponId), (now) => ({ type: 'RedeemCoupon' as const, owner: ctx, couponId, redemption, currency, now }), ctx);
      position = laterPosition(position, r.position);
    }
    return position;
  }

  /** What reserved them ended unpaid: the reservations are given back (a confirmed redemption stays). */
  async releaseReservations(ctx: CommandContext, couponIds: string[], redemption: string): Promise<string | null> {
    let position: string | null = null;
    for (const couponId of couponIds) {
      const r = await this.executor
        .execute(couponDecider, couponStream(couponId), (now) => ({ type: 'ReleaseCouponReservation' as const, owner: ctx, couponId, redemption, now }), ctx)
        .catch(() => null);
      position = laterPosition(position, r?.position ?? null);
    }
    return position;
  }

  /** Gives back the redemptions of `redemption` (what used the coupons was not written). */
  async release(ctx: CommandContext, couponIds: string[], redemption: string): Promise<void> {
    for (const couponId of couponIds) {
      await this.executor
        .execute(couponDecider, couponStream(couponId), (now) => ({ type: 'ReleaseCouponRedemption' as const, owner: ctx, couponId, redemption, now }), ctx)
        .catch(() => undefined);
    }
  }
}
