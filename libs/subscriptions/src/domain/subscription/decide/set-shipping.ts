import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base, refuseFinal } from '../subscription.rules.js';

/** The shipping address is set or cleared. */
export function decideSetShipping(command: CommandOf<'SetShipping'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  refuseFinal('change the shipping of', id, f);
  return [{ type: 'subscription.updated', data: { ...base(state, id, f.status), changes: { shipping: command.shipping }, reason: 'api' } }];
}
