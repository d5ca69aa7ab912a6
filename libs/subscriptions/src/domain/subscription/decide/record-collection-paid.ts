import type { CommandOf } from '../subscription.commands.js';
import type { SubscriptionEvent } from '../subscription.events.js';
import { FINAL_STATES, type SubscriptionState, type SubscriptionStatus } from '../subscription.state.js';
import { base } from '../subscription.rules.js';

/** A collection of the subscription was paid: the first real one activates it, the overdue one brings it back in good standing, a tokenizable method is saved (payment_information, switch_to_charge). */
export function decideRecordCollectionPaid(command: CommandOf<'RecordCollectionPaid'>, state: SubscriptionState): SubscriptionEvent[] {
  const f = state.fields!;
  const id = command.subscriptionId;
  const now = command.now.toISOString();
  const events: SubscriptionEvent[] = [];
  const isTrialCollection = command.collectionId === state.trialCollection;
  if (
    command.collectionId === f.latest_collection &&
    !isTrialCollection &&
    (f.status === 'incomplete' || f.status === 'trialing')
  ) {
    events.push({ type: 'subscription.activated', data: { ...base(state, id, 'active'), activated_at: now, collection: command.collectionId } });
  }
  if (command.collectionId === f.latest_collection && (f.status === 'past_due' || f.status === 'unpaid')) {
    // Paying the overdue collection brings the subscription back in good standing; a trial whose
    // first real collection went past due was never active: this payment activates it.
    // A cancellation scheduled before it went past due still stands: back to pending_cancel.
    const standing: SubscriptionStatus = f.cancel_at ? 'pending_cancel' : 'active';
    if (f.activated_at === null) events.push({ type: 'subscription.activated', data: { ...base(state, id, 'active'), activated_at: now, collection: command.collectionId } });
    if (f.activated_at !== null || standing !== 'active') {
      events.push({ type: 'subscription.updated', data: { ...base(state, id, standing), changes: { status: standing }, reason: 'collection_paid' } });
    }
  }
  if (
    f.collection_method === 'charge' &&
    f.payment_method === null &&
    command.tokenizable &&
    command.paymentMethod &&
    !FINAL_STATES.includes(f.status)
  ) {
    // Paid with one-off card or wallet data: the saved method pays the renewals.
    events.push({
      type: 'subscription.updated',
      data: {
        ...base(state, id, events.length ? 'active' : f.status),
        changes: { payment_method: command.paymentMethod, payment_information: null },
        reason: 'payment_method_saved',
      },
    });
  }
  if (f.switch_to_charge && f.collection_method === 'collect' && command.tokenizable && command.paymentMethod && !FINAL_STATES.includes(f.status)) {
    events.push({
      type: 'subscription.updated',
      data: {
        ...base(state, id, events.length ? 'active' : f.status),
        changes: { collection_method: 'charge', payment_method: command.paymentMethod, days_until_due: null },
        reason: 'switch_to_charge',
      },
    });
  }
  return events;
}
