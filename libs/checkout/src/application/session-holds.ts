import { laterPosition } from '#event-store/positions.js';
import { couponDecider, couponStream } from '#coupons/domain/coupon.decider.js';
import type { NewEvent } from '#event-store/event-store.port.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { type CheckoutSessionFields, checkoutSessionDecider, checkoutSessionStream } from '../domain/checkout-session.decider.js';
import { paymentLinkDecider, paymentLinkStream } from '../domain/payment-link.decider.js';

/**
 * What a checkout session holds while its customer pays: a use of its payment link and a redemption
 * of each coupon, reserved when the payment starts (pay-checkout-session.ts). Here they are settled
 * when the session ends: paid → the use and the redemptions count (`payment_link.used`,
 * `coupon.redeemed`); expired unpaid → they are given back (the link and the coupons can be used
 * again). A code the customer removes while the session is open gives its reservation back at once.
 * Each step is idempotent per session, so running it again decides nothing.
 *
 * Run after every session command that decided something (`onSession`), so whichever path pays or
 * expires a session (the page, the collection paid later, the expiry deadline) settles its holds.
 * A failure here never undoes the session's own change: a hold left reserved keeps the limit on the
 * safe side (never more uses than `usage_limit`) and is settled by the session's next change.
 */
export async function settleSessionHolds(executor: AggregateExecutor, ctx: CommandContext, sessionId: string, f: CheckoutSessionFields, events: NewEvent[]): Promise<string | null> {
  const paid = f.payment_status === 'paid';
  // Expired unpaid, or complete with a payment that failed and lapsed at `expires_at`.
  const ended = f.status === 'expired' || events.some((e) => e.type === 'checkout_payment.lapsed');
  const removed = events.some((e) => (e.data as { reason?: string })?.reason === 'discount_removed');
  if (!paid && !ended && !removed) return null;
  const current = f.discounts.flatMap((d) => (d.coupon ? [d.coupon] : []));
  // The coupons the session carried at some point (one removed may hold a reservation), read only when
  // something is to be given back: a payment settles the session's current coupons without reading its history.
  const ever = new Set(current);
  if (ended || removed) {
    const { history } = await executor.loadHistory(checkoutSessionDecider, checkoutSessionStream(sessionId));
    for (const e of history) {
      const data = e.data as { discounts?: unknown; changes?: { discounts?: unknown } };
      for (const list of [data.discounts, data.changes?.discounts]) {
        if (Array.isArray(list)) for (const d of list as Array<{ coupon?: string | null }>) if (d?.coupon) ever.add(d.coupon);
      }
    }
  }
  let position: string | null = null;
  const run = async (step: () => Promise<{ position: string | null }>) => {
    try {
      position = laterPosition(position, (await step()).position);
    } catch {
      // Left reserved (see above).
    }
  };
  if (f.payment_link && (paid || ended)) {
    const linkId = f.payment_link;
    const type = paid ? ('UsePaymentLink' as const) : ('ReleasePaymentLinkUse' as const);
    await run(() => executor.execute(paymentLinkDecider, paymentLinkStream(linkId), (now) => ({ type, owner: ctx, linkId, sessionId, now }), ctx));
  }
  for (const couponId of ever) {
    const confirm = paid && current.includes(couponId);
    if (!confirm && !ended && current.includes(couponId)) continue; // still on the open session
    await run(() =>
      executor.execute(
        couponDecider,
        couponStream(couponId),
        (now) =>
          confirm
            ? { type: 'RedeemCoupon' as const, owner: ctx, couponId, redemption: sessionId, currency: f.currency, now }
            : { type: 'ReleaseCouponReservation' as const, owner: ctx, couponId, redemption: sessionId, now },
        ctx,
      ),
    );
  }
  return position;
}
