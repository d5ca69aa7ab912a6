import { notFound } from '#shared/errors.js';
import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base, refuseFinal } from '../subscription.rules.js';

/** One discount removed, the others kept. */
export function decideDeleteSubscriptionDiscount(command: CommandOf<'DeleteSubscriptionDiscount'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  refuseFinal('delete a discount of', id, f);
  if (!f.discounts.some((d) => d.id === command.discountId)) throw notFound('subscription discount', command.discountId);
  return [{ type: 'subscription.updated', data: { ...base(state, id, f.status), changes: { discounts: f.discounts.filter((d) => d.id !== command.discountId) }, reason: 'api' } }];
}
