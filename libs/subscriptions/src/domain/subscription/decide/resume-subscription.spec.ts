/** ResumeSubscription: a pause ends, a scheduled cancellation is withdrawn. */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type SubscriptionCreated, type SubscriptionEvent, subscriptionDeadline, subscriptionDecider } from '../../subscription.decider.js';
import { at, id, create, collectInput, cancel, pause, resume, history, fieldsOf, createdIn, active, paused, pendingCancel, canceled } from '../../testing/subscription-fixtures.js';

describe('subscription: pause and resume', () => {
  test('paused → resumed and active again', () => {
    given(subscriptionDecider, paused())
      .when(resume())
      .then([{ type: 'subscription.resumed', data: { id, customer: 'cus_1', status: 'active', meta_data: {}, resumed_at: at(5).toISOString(), next_renewal_date: '2026-02-28T10:00:00.000Z', cycle: 1 } }]);
    expect(fieldsOf(history(create(collectInput()), pause('2026-03-15T10:00:00.000Z'), resume()))).toMatchObject({ status: 'active', paused_at: null, resumes_at: null });
  });

  test('only a paused subscription is resumed (409 naming the state)', () => {
    for (const [past, status] of [
      [active(), 'active'],
      [canceled(), 'canceled'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(resume()).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot resume subscription sub_1: its status is ${status}`);
    }
  });

  test('resume on pending_cancel withdraws the scheduled cancellation: active again, cancel_at cleared, renewing on its date', () => {
    given(subscriptionDecider, pendingCancel())
      .when(resume())
      .then([{ type: 'subscription.cancellation_withdrawn', data: { id, customer: 'cus_1', status: 'active', meta_data: {}, withdrawn_at: at(5).toISOString(), cancel_at: '2026-02-28T10:00:00.000Z' } }]);
    const after = fieldsOf(history(create(collectInput()), cancel('period_end'), resume()));
    expect(after).toMatchObject({ status: 'active', cancel_at: null, next_renewal_date: '2026-02-28T10:00:00.000Z', cycle: 1 });
    expect(subscriptionDeadline(after)).toEqual({ kind: 'renew', at: '2026-02-28T10:00:00.000Z' });
    // Withdrawn, it can be scheduled again; a second resume is a state error (nothing left to withdraw).
    given(subscriptionDecider, history(create(collectInput()), cancel('period_end'), resume())).when(cancel('period_end')).then(([e]) => expect(e.type).toBe('subscription.pending_canceled'));
    expect(given(subscriptionDecider, history(create(collectInput()), cancel('period_end'), resume())).when(resume()).thenRejects('invalid_state', null).message).toBe('Cannot resume subscription sub_1: its status is active');
  });

  test('a cancellation that stands while past due is withdrawn too; the subscription stays past due', () => {
    const [created] = createdIn('past_due') as SubscriptionCreated[];
    const overdueEnding: SubscriptionEvent[] = [{ ...created, data: { ...created.data, cancel_at: '2026-02-28T10:00:00.000Z' } }];
    given(subscriptionDecider, overdueEnding)
      .when(resume())
      .then([{ type: 'subscription.cancellation_withdrawn', data: { id, customer: 'cus_1', status: 'past_due', meta_data: {}, withdrawn_at: at(5).toISOString(), cancel_at: '2026-02-28T10:00:00.000Z' } }]);
    // Without a cancellation to withdraw, a past-due subscription is not resumable.
    expect(given(subscriptionDecider, createdIn('past_due')).when(resume()).thenRejects('invalid_state', null).message).toBe('Cannot resume subscription sub_1: its status is past_due');
  });
});
