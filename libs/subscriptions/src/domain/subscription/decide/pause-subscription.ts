import { invalidParam } from '#shared/errors.js';
import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { refusedInState, parseDate, base } from '../subscription.rules.js';

/** An active subscription is paused, optionally until `resumes_at`. */
export function decidePauseSubscription(command: CommandOf<'PauseSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  const now = command.now.toISOString();
  if (f.status !== 'active') throw refusedInState('pause', id, f.status);
  let resumesAt: string | null = null;
  if (command.resumesAt !== null) {
    const d = parseDate('resumes_at', command.resumesAt);
    if (d.getTime() <= command.now.getTime()) throw invalidParam('resumes_at', 'resumes_at must be in the future');
    resumesAt = d.toISOString();
  }
  return [{ type: 'subscription.paused', data: { ...base(state, id, 'paused'), paused_at: now, resumes_at: resumesAt } }];
}
