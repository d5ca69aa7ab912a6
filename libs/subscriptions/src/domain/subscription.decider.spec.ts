/** The assembled decider: a command on a subscription of another account or mode is not found. */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { subscriptionDecider } from './subscription.decider.js';
import { cancel, active } from './testing/subscription-fixtures.js';

describe('subscription: tenancy', () => {
  test('a subscription that does not exist, or of another account or mode, is not found', () => {
    const e = given(subscriptionDecider).when(cancel('now')).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such subscription: 'sub_1'");
    expect(e.status).toBe(404);
    given(subscriptionDecider, active()).when(cancel('now', { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing', 'id');
    given(subscriptionDecider, active()).when(cancel('now', { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing', 'id');
  });
});
