import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base } from '../subscription.rules.js';

/** The first-payment window of an `incomplete` subscription closed (or the checkout session that sold it expired unpaid). */
export function decideExpireSubscription(command: CommandOf<'ExpireSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  const now = command.now.toISOString();
  if (f.status !== 'incomplete' || !f.first_payment_expires_at) return [];
  if (!command.checkoutExpired && Date.parse(f.first_payment_expires_at) > command.now.getTime()) return [];
  return [{ type: 'subscription.expired', data: { ...base(state, id, 'expired'), expired_at: now, collection: f.latest_collection } }];
}
