import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base } from '../subscription.rules.js';

/** Its latest collection went past due. */
export function decideMarkSubscriptionPastDue(command: CommandOf<'MarkSubscriptionPastDue'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  if (command.collectionId !== f.latest_collection || !['active', 'trialing', 'pending_cancel'].includes(f.status)) return [];
  return [{ type: 'subscription.past_due', data: { ...base(state, id, 'past_due'), collection: command.collectionId } }];
}
