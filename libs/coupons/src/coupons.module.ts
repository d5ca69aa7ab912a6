import { Module } from '@nestjs/common';
import { CreateCouponHandler, DeleteCouponHandler, GetCouponHandler, ListCouponsHandler, UpdateCouponHandler } from './application/coupon-commands.js';
import { CouponRedemptions } from './application/coupon-redemptions.js';
import { CouponsController } from './http/coupons.controller.js';

/** Coupons: discounts redeemed by code in checkout sessions, payment links and subscriptions. */
@Module({
  controllers: [CouponsController],
  providers: [CreateCouponHandler, UpdateCouponHandler, DeleteCouponHandler, GetCouponHandler, ListCouponsHandler, CouponRedemptions],
  exports: [CouponRedemptions],
})
export class CouponsModule {}
