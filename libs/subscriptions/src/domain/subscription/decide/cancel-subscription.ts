import { DomainError, invalidParam } from '#shared/errors.js';
import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import type { SubscriptionState } from '../subscription.state.js';
import { refusedInState, commitmentEndOf, base, refuseFinal } from '../subscription.rules.js';

/** Cancel now, or at the end of the period (of the commitment, while committed). */
export function decideCancelSubscription(command: CommandOf<'CancelSubscription'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  const now = command.now.toISOString();
  // Commitment: until `commitment_periods` cycles are billed the subscription cannot stop early:
  // `period_end` becomes a cancellation at the end of the committed period, `now` is refused.
  const commitmentEnd = commitmentEndOf(f);
  const committed = commitmentEnd !== null && commitmentEnd.getTime() > command.now.getTime();
  if (command.cancelAt === 'period_end') {
    if (f.status === 'pending_cancel') return [];
    if (f.status !== 'active') throw refusedInState('cancel at period end', id, f.status);
    const periodEnd = f.current_period_end ?? f.next_renewal_date;
    const cancelAt = committed && periodEnd && commitmentEnd!.getTime() > Date.parse(periodEnd) ? commitmentEnd!.toISOString() : periodEnd;
    return [{ type: 'subscription.pending_canceled', data: { ...base(state, id, 'pending_cancel'), cancel_at: cancelAt } }];
  }
  if (command.cancelAt !== 'now') throw invalidParam('cancel_at', 'cancel_at must be period_end or now');
  refuseFinal('cancel', id, f);
  if (committed && !['incomplete', 'scheduled', 'past_due', 'unpaid'].includes(f.status)) {
    throw new DomainError(
      'commitment_not_met',
      `Cannot cancel subscription ${id} now: it is committed to ${f.commitment_periods} periods, until ${commitmentEnd!.toISOString()}; cancel with cancel_at period_end to end it then`,
      'cancel_at',
      409,
    );
  }
  return [{ type: 'subscription.canceled', data: { ...base(state, id, 'canceled'), canceled_at: now } }];
}
