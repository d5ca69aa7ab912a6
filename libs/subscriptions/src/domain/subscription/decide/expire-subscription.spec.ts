/** ExpireSubscription: the first payment never comes. */
import { describe, expect, test } from '@jest/globals';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { type SubscriptionCommand, FIRST_PAYMENT_WINDOW_HOURS, subscriptionDeadline, subscriptionDecider } from '../../subscription.decider.js';
import { at, owner, id, create, paid } from '../../testing/subscription-fixtures.js';

describe('subscription decider: the first payment never comes', () => {
  const created = () => subscriptionDecider.decide(create(), subscriptionDecider.initialState);
  const expire = (hours: number, checkoutExpired?: boolean): SubscriptionCommand => ({ type: 'ExpireSubscription', owner, subscriptionId: id, now: at(hours), ...(checkoutExpired ? { checkoutExpired } : {}) });
  test('incomplete: expired after its 23-hour window, or earlier when the checkout session that sold it expired unpaid', () => {
    expect(fold(subscriptionDecider as never, created()) as unknown).toMatchObject({ fields: { status: 'incomplete' } });
    given(subscriptionDecider, created()).when(expire(1)).then([]);
    given(subscriptionDecider, created()).when(expire(24)).then(([e]) => expect(e).toMatchObject({ type: 'subscription.expired', data: { collection: 'col_1' } }));
    given(subscriptionDecider, created()).when(expire(1, true)).then(([e]) => expect(e).toMatchObject({ type: 'subscription.expired', data: { collection: 'col_1' } }));
  });
  test('sold by a checkout session: its window is the session\'s expires_at, and only the session\'s expiry ends it (no deadline of its own)', () => {
    const bySession = subscriptionDecider.decide({ ...create(), checkoutSession: { id: 'cs_1', expires_at: at(24).toISOString() } } as SubscriptionCommand, subscriptionDecider.initialState);
    expect(bySession[0].data).toMatchObject({ status: 'incomplete', first_payment_expires_at: at(24).toISOString(), _checkout_session: 'cs_1' });
    const f = (fold(subscriptionDecider as never, bySession) as unknown as { fields: Parameters<typeof subscriptionDeadline>[0] }).fields;
    expect(subscriptionDeadline(f)).toBeNull();
    // Past the 23 hours a subscription of its own would have, nothing expires it; the session's expiry does.
    given(subscriptionDecider, bySession).when(expire(23.5)).then([]);
    given(subscriptionDecider, bySession).when(expire(24, true)).then(([e]) => expect(e).toMatchObject({ type: 'subscription.expired', data: { collection: 'col_1' } }));
    // Without a session: the 23-hour window and its deadline.
    const own = (fold(subscriptionDecider as never, created()) as unknown as { fields: Parameters<typeof subscriptionDeadline>[0] }).fields;
    expect(subscriptionDeadline(own)).toEqual({ kind: 'expire', at: at(FIRST_PAYMENT_WINDOW_HOURS).toISOString() });
  });
  test('an active one never expires, even when asked by an expired checkout', () => {
    const active = [...created(), ...subscriptionDecider.decide(paid('col_1'), fold(subscriptionDecider as never, created()) as never)];
    given(subscriptionDecider, active).when(expire(1, true)).then([]);
  });
});
