import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { base } from '../subscription.rules.js';

/** Its latest collection was given up on (retries exhausted). */
export function decideMarkSubscriptionUnpaid(command: CommandOf<'MarkSubscriptionUnpaid'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  if (command.collectionId !== f.latest_collection || f.status !== 'past_due') return [];
  return [{ type: 'subscription.unpaid', data: { ...base(state, id, 'unpaid'), collection: command.collectionId } }];
}
