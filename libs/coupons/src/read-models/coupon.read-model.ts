import type { OwnedDoc } from '#platform/read-models.js';
import type { CouponFields } from '../domain/coupon.decider.js';

/** A coupon as the `coupons` read model holds it (GET /v1/coupons). */
export type CouponDoc = OwnedDoc & CouponFields & { object: 'coupon'; created_date: string };
