/** CancelSubscription: at period end or now. */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type SubscriptionCommand, type SubscriptionEvent, type SubscriptionStatus, subscriptionDecider } from '../../subscription.decider.js';
import { at, id, create, cancel, history, fieldsOf, createdIn, incomplete, active, trialing, scheduled, paused, pendingCancel, canceled } from '../../testing/subscription-fixtures.js';

describe('subscription: cancel', () => {
  test('period_end from active → pending_cancel at the end of the current period', () => {
    given(subscriptionDecider, active())
      .when(cancel('period_end'))
      .then([{ type: 'subscription.pending_canceled', data: { id, customer: 'cus_1', status: 'pending_cancel', meta_data: {}, cancel_at: '2026-02-28T10:00:00.000Z' } }]);
    expect(fieldsOf(pendingCancel())).toMatchObject({ status: 'pending_cancel', cancel_at: '2026-02-28T10:00:00.000Z' });
    // Asked again: nothing more happens.
    given(subscriptionDecider, pendingCancel()).when(cancel('period_end')).then([]);
  });

  test('period_end is refused outside active (409 invalid_state naming the state)', () => {
    const cases: Array<[SubscriptionEvent[], SubscriptionStatus]> = [
      [incomplete(), 'incomplete'],
      [trialing(), 'trialing'],
      [scheduled(), 'scheduled'],
      [paused(), 'paused'],
      [canceled(), 'canceled'],
      [createdIn('past_due'), 'past_due'],
      [createdIn('ended'), 'ended'],
    ];
    for (const [past, status] of cases) {
      const e = given(subscriptionDecider, past).when(cancel('period_end')).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot cancel at period end subscription sub_1: its status is ${status}`);
      expect(e.status).toBe(409);
    }
  });

  test('now → canceled from any state that is not final', () => {
    const cases: Array<[SubscriptionEvent[], SubscriptionStatus]> = [
      [incomplete(), 'incomplete'],
      [active(), 'active'],
      [trialing(), 'trialing'],
      [scheduled(), 'scheduled'],
      [paused(), 'paused'],
      [pendingCancel(), 'pending_cancel'],
      [createdIn('past_due'), 'past_due'],
      [createdIn('unpaid'), 'unpaid'],
    ];
    for (const [past, status] of cases) {
      expect(fieldsOf(past).status).toBe(status);
      given(subscriptionDecider, past)
        .when(cancel('now'))
        .then([{ type: 'subscription.canceled', data: { id, customer: 'cus_1', status: 'canceled', meta_data: {}, canceled_at: at(3).toISOString() } }]);
    }
    expect(fieldsOf(history(create(), cancel('now')))).toMatchObject({ status: 'canceled', canceled_at: at(3).toISOString(), next_renewal_date: null, first_payment_expires_at: null });
  });

  test('now is refused in the final states canceled, ended and expired (409 invalid_state naming the state)', () => {
    for (const [past, status] of [
      [canceled(), 'canceled'],
      [createdIn('ended'), 'ended'],
      [createdIn('expired'), 'expired'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(cancel('now')).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot cancel subscription sub_1: its status is ${status}`);
      expect(e.status).toBe(409);
    }
  });

  test('cancel_at must be period_end or now', () => {
    const e = given(subscriptionDecider, active())
      .when({ ...cancel('now'), cancelAt: 'tomorrow' } as unknown as SubscriptionCommand)
      .thenRejects('parameter_invalid', 'cancel_at');
    expect(e.message).toBe('cancel_at must be period_end or now');
  });
});
