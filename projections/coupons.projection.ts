import { type CouponCreated, type CouponEvent, applyCouponEvent } from '#coupons/domain/coupon.decider.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { CouponDoc } from '#coupons/read-models/coupon.read-model.js';

/** Coupons as GET /v1/coupons serves them. */
export const couponsProjection: Projection<CouponDoc> = {
  name: 'coupons',
  category: 'coupon',
  collection: 'coupons',
  collections: [{ name: 'coupons', indexes: TENANT_INDEXES }],
  documentIds: (e) => (e.streamId.startsWith('coupon-') ? [e.streamId.slice('coupon-'.length)] : []),
  project(doc, event) {
    const e = event as unknown as CouponEvent;
    if (e.type === 'coupon.created') {
      const { account_id, created_at, id, is_test, ...fields }: CouponCreated['data'] = e.data;
      return newOwnedDoc('coupon', { id, account_id, is_test, created_at }, fields) as CouponDoc;
    }
    if (!doc) return doc;
    if (e.type === 'coupon.deleted') return { ...doc, _deleted: true };
    return { ...doc, ...applyCouponEvent(doc, e) };
  },
};
