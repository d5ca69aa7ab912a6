import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { resumed } from '../subscription.rules.js';

/** A pause with `resumes_at` reached it. */
export function decideResumeOnSchedule(command: CommandOf<'ResumeOnSchedule'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  if (f.status !== 'paused' || !f.resumes_at || Date.parse(f.resumes_at) > command.now.getTime()) return [];
  return [resumed(state, id, command.now)];
}
