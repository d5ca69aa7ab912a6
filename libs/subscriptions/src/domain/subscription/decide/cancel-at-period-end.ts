import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base } from '../subscription.rules.js';

/** A scheduled cancellation reached its `cancel_at`. */
export function decideCancelAtPeriodEnd(command: CommandOf<'CancelAtPeriodEnd'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  // A scheduled cancellation holds whether the subscription is in good standing or overdue.
  if (!['pending_cancel', 'past_due', 'unpaid'].includes(f.status) || !f.cancel_at || Date.parse(f.cancel_at) > command.now.getTime()) return [];
  return [{ type: 'subscription.canceled', data: { ...base(state, id, 'canceled'), canceled_at: f.cancel_at } }];
}
