/**
 * The subscription aggregate, assembled: `subscriptionDecider` dispatches each command to its decide
 * function (subscription/decide/<command>.ts, specs beside them) and folds events with
 * subscription/subscription.evolve.ts. The public names of the aggregate are re-exported from here.
 */
import { ownedBy } from '#shared/owner.js';
import type { Decider } from '#shared/decider.js';
import { notFound } from '#shared/errors.js';
import type { SubscriptionCommand } from './subscription/subscription.commands.js';
import type { SubscriptionEvent } from './subscription/subscription.events.js';
import type { SubscriptionState } from './subscription/subscription.state.js';
import { evolveSubscription, initialSubscriptionState } from './subscription/subscription.evolve.js';
import { decideCancelAtPeriodEnd } from './subscription/decide/cancel-at-period-end.js';
import { decideCancelSubscription } from './subscription/decide/cancel-subscription.js';
import { decideCreateSubscription } from './subscription/decide/create-subscription.js';
import { decideDeleteSubscriptionDiscount } from './subscription/decide/delete-subscription-discount.js';
import { decideExpireSubscription } from './subscription/decide/expire-subscription.js';
import { decideMarkSubscriptionPastDue } from './subscription/decide/mark-subscription-past-due.js';
import { decideMarkSubscriptionUnpaid } from './subscription/decide/mark-subscription-unpaid.js';
import { decidePauseSubscription } from './subscription/decide/pause-subscription.js';
import { decideRecordCollectionPaid } from './subscription/decide/record-collection-paid.js';
import { decideRenewSubscription } from './subscription/decide/renew-subscription.js';
import { decideResumeOnSchedule } from './subscription/decide/resume-on-schedule.js';
import { decideResumeSubscription } from './subscription/decide/resume-subscription.js';
import { decideSetShipping } from './subscription/decide/set-shipping.js';
import { decideSetShippingItem } from './subscription/decide/set-shipping-item.js';
import { decideUpdateSubscription } from './subscription/decide/update-subscription.js';

export * from './subscription/subscription.state.js';
export * from './subscription/subscription.commands.js';
export * from './subscription/subscription.events.js';
export { applySubscriptionEvent } from './subscription/subscription.evolve.js';
export { MESSAGES, refusedInState, applyItems, discountsForNextCollection } from './subscription/subscription.rules.js';

/**
 * A subscription: the agreement. It never charges itself; its collections are paid. Status follows
 * the spec's transition table; time-driven transitions (renewal, due dates, expiry) come with the
 * scheduler.
 */
export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionState, SubscriptionEvent> = {
  initialState: initialSubscriptionState,

  decide(command, state) {
    if (command.type === 'CreateSubscription') return decideCreateSubscription(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('subscription', command.subscriptionId);
    switch (command.type) {
      case 'RecordCollectionPaid':
        return decideRecordCollectionPaid(command, state);
      case 'UpdateSubscription':
        return decideUpdateSubscription(command, state);
      case 'DeleteSubscriptionDiscount':
        return decideDeleteSubscriptionDiscount(command, state);
      case 'CancelSubscription':
        return decideCancelSubscription(command, state);
      case 'PauseSubscription':
        return decidePauseSubscription(command, state);
      case 'ResumeSubscription':
        return decideResumeSubscription(command, state);
      case 'ResumeOnSchedule':
        return decideResumeOnSchedule(command, state);
      case 'RenewSubscription':
        return decideRenewSubscription(command, state);
      case 'ExpireSubscription':
        return decideExpireSubscription(command, state);
      case 'CancelAtPeriodEnd':
        return decideCancelAtPeriodEnd(command, state);
      case 'MarkSubscriptionPastDue':
        return decideMarkSubscriptionPastDue(command, state);
      case 'MarkSubscriptionUnpaid':
        return decideMarkSubscriptionUnpaid(command, state);
      case 'SetShipping':
        return decideSetShipping(command, state);
      case 'SetShippingItem':
        return decideSetShippingItem(command, state);
    }
  },

  evolve: evolveSubscription,
};
