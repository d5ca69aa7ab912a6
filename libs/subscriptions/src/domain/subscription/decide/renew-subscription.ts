import { addHours } from 'date-fns';
import { cycleBoundary } from '../../billing-period.js';
import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import { FIRST_PAYMENT_WINDOW_HOURS, type SubscriptionState } from '../subscription.state.js';
import { base } from '../subscription.rules.js';

/** What time does at `next_renewal_date` (see the RenewSubscription command). */
export function decideRenewSubscription(c: CommandOf<'RenewSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = c.subscriptionId;
  if (f.next_renewal_date !== c.expected || !f.billing_cycle_anchor) return [];
  const due = Date.parse(c.expected);
  if (due > c.now.getTime()) return [];
  const anchor = new Date(f.billing_cycle_anchor);
  const boundary = (n: number) => cycleBoundary(anchor, f.billing_period, f.billing_interval, n).toISOString();
  if (f.status === 'scheduled') {
    const charge = f.collection_method === 'charge';
    return [
      {
        type: 'subscription.started',
        data: {
          ...base(state, id, charge ? 'incomplete' : 'active'),
          collection: c.collectionId,
          collections_count: 1,
          current_period_start: c.expected,
          current_period_end: boundary(1),
          next_renewal_date: boundary(1),
          cycle: 1,
          started_at: c.now.toISOString(),
          first_payment_expires_at: charge ? addHours(c.now, FIRST_PAYMENT_WINDOW_HOURS).toISOString() : null,
          activated_at: charge ? null : c.now.toISOString(),
        },
      },
    ];
  }
  // A cancellation scheduled at the end of a commitment still bills the committed periods before it.
  const committedRenewal = f.status === 'pending_cancel' && f.cancel_at !== null && due < Date.parse(f.cancel_at);
  if (!['active', 'past_due', 'trialing'].includes(f.status) && !committedRenewal) return [];
  if (f.duration !== null && f.collections_count >= f.duration) {
    return [{ type: 'subscription.ended', data: { ...base(state, id, 'ended'), ended_at: c.expected } }];
  }
  if (f.usage_based && f.usage_reported_for !== c.expected) {
    return [
      {
        type: 'subscription.report_usage',
        data: {
          ...base(state, id, f.status),
          period_start: f.current_period_start,
          period_end: c.expected,
          collect_at: new Date(due + c.usageWaitMs).toISOString(),
          items: f.items.map((it) => ({ id: it.id, price: it.price.id, quantity: it.quantity })),
        },
      },
    ];
  }
  if (f.usage_based && f.usage_collect_at && Date.parse(f.usage_collect_at) > c.now.getTime()) return [];
  const count = f.collections_count + 1;
  const events: SubscriptionEvent[] = [
    {
      type: 'subscription.renewed',
      data: {
        ...base(state, id, f.status),
        collection: c.collectionId,
        collections_count: count,
        current_period_start: c.expected,
        current_period_end: boundary(f.cycle + 1),
        next_renewal_date: boundary(f.cycle + 1),
        cycle: f.cycle + 1,
        renewed_at: c.now.toISOString(),
      },
    },
  ];
  if (f.duration !== null && count === f.duration) {
    events.push({ type: 'subscription.will_end', data: { ...base(state, id, f.status), ends_at: boundary(f.cycle + 1), remaining_collections: 0 } });
  }
  return events;
}
