/** DeleteSubscriptionDiscount. */
import { describe, expect, test } from '@jest/globals';
import { fold } from '#shared/decider.js';
import { given } from '#shared/testing/given.js';
import { subscriptionDecider } from '../../subscription.decider.js';
import { create, collectInput, cancel, deleteDiscount, history, fieldsOf } from '../../testing/subscription-fixtures.js';

describe('subscription: delete a discount', () => {
  const withDiscounts = () => history(create(collectInput({ discounts: [{ code: 'WELCOME', amount: '1000' }, { code: 'TENOFF', percent: '10' }] })));

  test('removes that discount and keeps the others', () => {
    given(subscriptionDecider, withDiscounts())
      .when(deleteDiscount('sd_1'))
      .then((events) =>
        expect(events[0]).toMatchObject({
          type: 'subscription.updated',
          data: { status: 'active', reason: 'api', changes: { discounts: [{ id: 'sd_2', code: 'TENOFF', amount: null, percent: '10', duration_in_collections: null }] } },
        }),
      );
    expect(fieldsOf([...withDiscounts(), ...subscriptionDecider.decide(deleteDiscount('sd_1'), fold(subscriptionDecider, withDiscounts()))]).discounts.map((d) => d.id)).toEqual(['sd_2']);
  });

  test('an unknown discount is not found; a final subscription refuses', () => {
    const e = given(subscriptionDecider, withDiscounts()).when(deleteDiscount('sd_9')).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such subscription discount: 'sd_9'");
    const final = history(create(collectInput({ discounts: [{ code: 'WELCOME', amount: '1000' }] })), cancel('now'));
    expect(given(subscriptionDecider, final).when(deleteDiscount('sd_1')).thenRejects('invalid_state').message).toBe('Cannot delete a discount of subscription sub_1: its status is canceled');
  });
});
