/** PauseSubscription. */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { subscriptionDecider } from '../../subscription.decider.js';
import { NOW, at, id, create, collectInput, pause, history, fieldsOf, incomplete, active, trialing, paused, pendingCancel, canceled } from '../../testing/subscription-fixtures.js';

describe('subscription: pause and resume', () => {
  test('active → paused, optionally with resumes_at', () => {
    given(subscriptionDecider, active())
      .when(pause('2026-03-15T10:00:00.000Z'))
      .then([{ type: 'subscription.paused', data: { id, customer: 'cus_1', status: 'paused', meta_data: {}, paused_at: at(4).toISOString(), resumes_at: '2026-03-15T10:00:00.000Z' } }]);
    given(subscriptionDecider, active()).when(pause()).then((events) => expect(events[0].data).toMatchObject({ resumes_at: null }));
    expect(fieldsOf(history(create(collectInput()), pause('2026-03-15T10:00:00.000Z')))).toMatchObject({ status: 'paused', paused_at: at(4).toISOString(), resumes_at: '2026-03-15T10:00:00.000Z' });
  });

  test('resumes_at must be a future timestamp', () => {
    expect(given(subscriptionDecider, active()).when(pause(NOW)).thenRejects('parameter_invalid', 'resumes_at').message).toBe('resumes_at must be in the future');
    expect(given(subscriptionDecider, active()).when(pause('someday')).thenRejects('parameter_invalid', 'resumes_at').message).toBe('resumes_at must be an ISO 8601 timestamp');
  });

  test('only an active subscription is paused (409 naming the state)', () => {
    for (const [past, status] of [
      [paused(), 'paused'],
      [trialing(), 'trialing'],
      [incomplete(), 'incomplete'],
      [pendingCancel(), 'pending_cancel'],
      [canceled(), 'canceled'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(pause()).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot pause subscription sub_1: its status is ${status}`);
    }
  });
});
