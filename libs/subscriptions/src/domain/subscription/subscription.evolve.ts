import type { SubscriptionEvent, SubscriptionPeriod } from './subscription.events.js';
import type { SubscriptionFields, SubscriptionState } from './subscription.state.js';

export { initialSubscriptionState } from './subscription.state.js';

/** A renewal's or a start's new cycle: its collection and period. */
function newPeriod(d: SubscriptionPeriod & { collection: string; collections_count: number }): Partial<SubscriptionFields> {
  return {
    latest_collection: d.collection,
    current_period_start: d.current_period_start,
    current_period_end: d.current_period_end,
    next_renewal_date: d.next_renewal_date,
    cycle: d.cycle,
    collections_count: d.collections_count,
  };
}

/** The fields after an event: shared by `evolve` and the subscriptions projection. */
export function applySubscriptionEvent(fields: SubscriptionFields, event: SubscriptionEvent): SubscriptionFields {
  switch (event.type) {
    case 'subscription.created':
    case 'subscription.scheduled': {
      const { id, account_id, is_test, created_at, first_collection, ...f } = event.data;
      return f;
    }
    case 'subscription.activated':
      return { ...fields, status: 'active', activated_at: event.data.activated_at, first_payment_expires_at: null };
    case 'subscription.updated':
      return { ...fields, ...event.data.changes };
    case 'subscription.pending_canceled':
      return { ...fields, status: 'pending_cancel', cancel_at: event.data.cancel_at };
    case 'subscription.canceled':
      return { ...fields, status: 'canceled', canceled_at: event.data.canceled_at, next_renewal_date: null, first_payment_expires_at: null };
    case 'subscription.paused':
      return { ...fields, status: 'paused', paused_at: event.data.paused_at, resumes_at: event.data.resumes_at };
    case 'subscription.resumed':
      return { ...fields, status: 'active', paused_at: null, resumes_at: null, next_renewal_date: event.data.next_renewal_date, cycle: event.data.cycle };
    case 'subscription.cancellation_withdrawn':
      return { ...fields, status: event.data.status, cancel_at: null };
    case 'subscription.renewed':
      return { ...fields, ...newPeriod(event.data), usage_reported_for: null, usage_collect_at: null };
    case 'subscription.started': {
      const d = event.data;
      return { ...fields, ...newPeriod(d), status: d.status, first_payment_expires_at: d.first_payment_expires_at, activated_at: d.activated_at };
    }
    case 'subscription.report_usage':
      return { ...fields, usage_reported_for: event.data.period_end, usage_collect_at: event.data.collect_at };
    case 'subscription.will_end':
      return fields;
    case 'subscription.ended':
      return { ...fields, status: 'ended', ended_at: event.data.ended_at, next_renewal_date: null };
    case 'subscription.expired':
      return { ...fields, status: 'expired', expired_at: event.data.expired_at, next_renewal_date: null, first_payment_expires_at: null };
    case 'subscription.past_due':
      return { ...fields, status: 'past_due' };
    case 'subscription.unpaid':
      return { ...fields, status: 'unpaid' };
    default:
      return fields;
  }
}

/** The state after an event. */
export function evolveSubscription(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  if (event.type === 'subscription.created' || event.type === 'subscription.scheduled') {
    return {
      exists: true,
      owner: { accountId: event.data.account_id, mode: event.data.is_test ? 'test' : 'live' },
      fields: applySubscriptionEvent(null as unknown as SubscriptionFields, event),
      trialCollection: event.data.status === 'trialing' ? event.data.first_collection : null,
    };
  }
  if (!state.fields) return state;
  return { ...state, fields: applySubscriptionEvent(state.fields, event) };
}
