import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState, SubscriptionStatus } from '../subscription.state.js';
import { refusedInState, resumed, base } from '../subscription.rules.js';

/** A paused subscription resumes; a cancellation scheduled for later is withdrawn. */
export function decideResumeSubscription(command: CommandOf<'ResumeSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  const now = command.now.toISOString();
  // A cancellation scheduled for later (pending_cancel, or one that stands while past due or
  // unpaid) is withdrawn: the status it had before the cancellation was asked for goes on.
  if (f.cancel_at && ['pending_cancel', 'past_due', 'unpaid'].includes(f.status)) {
    const status: SubscriptionStatus = f.status === 'pending_cancel' ? 'active' : f.status;
    return [{ type: 'subscription.cancellation_withdrawn', data: { ...base(state, id, status), withdrawn_at: now, cancel_at: f.cancel_at } }];
  }
  if (f.status !== 'paused') throw refusedInState('resume', id, f.status);
  return [resumed(state, id, command.now)];
}
