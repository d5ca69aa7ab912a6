/** RecordCollectionPaid: activation, good standing again, the saved method, switch_to_charge. */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type SubscriptionEvent, subscriptionDecider } from '../../subscription.decider.js';
import { at, id, create, collectInput, paid, cancel, history, fieldsOf, types, incomplete, active, trialing } from '../../testing/subscription-fixtures.js';

describe('subscription: a collection is paid', () => {
  const activated = (collection: string, hours = 1, meta_data = {}): SubscriptionEvent => ({
    type: 'subscription.activated',
    data: { id, customer: 'cus_1', status: 'active', meta_data, activated_at: at(hours).toISOString(), collection },
  });

  test('incomplete → active when its first collection is paid: subscription.activated', () => {
    given(subscriptionDecider, incomplete()).when(paid('col_1')).then([activated('col_1')]);
    const after = history(create(), paid('col_1'));
    expect(fieldsOf(after)).toMatchObject({ status: 'active', activated_at: at(1).toISOString(), first_payment_expires_at: null });
  });

  test('the activation carries the meta_data', () => {
    given(subscriptionDecider, history(create({ meta_data: { crm: '42' } })))
      .when(paid('col_1'))
      .then([activated('col_1', 1, { crm: '42' })]);
  });

  test('another collection of an incomplete subscription does not activate it', () => {
    given(subscriptionDecider, incomplete()).when(paid('col_other')).then([]);
  });

  test('trialing: paying the trial collection does not activate; paying the first real collection does', () => {
    given(subscriptionDecider, trialing()).when(paid('col_1')).then([]);
    const renewed: SubscriptionEvent = {
      type: 'subscription.updated',
      data: { id, customer: 'cus_1', status: 'trialing', meta_data: {}, changes: { latest_collection: 'col_2' }, reason: 'renewal' },
    };
    given(subscriptionDecider, [...trialing(), renewed]).when(paid('col_2', { hours: 24 * 14 })).then([activated('col_2', 24 * 14)]);
    // The trial collection stays the trial collection even after a renewal.
    given(subscriptionDecider, [...trialing(), renewed]).when(paid('col_1')).then([]);
  });

  test('an active subscription is not activated again by a paid renewal', () => {
    given(subscriptionDecider, active()).when(paid('col_1')).then([]);
    given(subscriptionDecider, history(create(), paid('col_1'))).when(paid('col_1', { hours: 2 })).then([]);
  });

  test('charge with one-off payment_information: the method saved by the first payment pays the renewals', () => {
    const oneOff = () => history(create({ payment_information: { gateway: 'gateway_a', type: 'card' } }));
    given(subscriptionDecider, oneOff())
      .when(paid('col_1', { paymentMethod: 'pm_new', tokenizable: true }))
      .then([
        activated('col_1'),
        {
          type: 'subscription.updated',
          data: { id, customer: 'cus_1', status: 'active', meta_data: {}, changes: { payment_method: 'pm_new', payment_information: null }, reason: 'payment_method_saved' },
        },
      ]);
    const saved = history(create({ payment_information: { gateway: 'gateway_a', type: 'card' } }), paid('col_1', { paymentMethod: 'pm_new', tokenizable: true }));
    expect(fieldsOf(saved)).toMatchObject({ status: 'active', payment_method: 'pm_new', payment_information: null });
    // Saved once: a later payment with another method changes nothing.
    given(subscriptionDecider, saved).when(paid('col_2', { paymentMethod: 'pm_other', tokenizable: true, hours: 2 })).then([]);
    // A method that cannot be stored (pse) saves nothing.
    given(subscriptionDecider, history(create({ payment_information: { gateway: 'gateway_a', type: 'pse' } })))
      .when(paid('col_1', { paymentMethod: null, tokenizable: false }))
      .then([activated('col_1')]);
    // A subscription that already has its payment method keeps it.
    given(subscriptionDecider, incomplete()).when(paid('col_1', { paymentMethod: 'pm_new', tokenizable: true })).then([activated('col_1')]);
  });

  test('switch_to_charge: a collection paid with a tokenizable method makes the subscription automatic', () => {
    const past = history(create(collectInput({ switch_to_charge: true })));
    given(subscriptionDecider, past)
      .when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: true }))
      .then([
        {
          type: 'subscription.updated',
          data: { id, customer: 'cus_1', status: 'active', meta_data: {}, changes: { collection_method: 'charge', payment_method: 'pm_9', days_until_due: null }, reason: 'switch_to_charge' },
        },
      ]);
    const switched = history(create(collectInput({ switch_to_charge: true })), paid('col_1', { paymentMethod: 'pm_9', tokenizable: true }));
    expect(fieldsOf(switched)).toMatchObject({ collection_method: 'charge', payment_method: 'pm_9', days_until_due: null, status: 'active' });
    // Once automatic, later payments change nothing.
    given(subscriptionDecider, switched).when(paid('col_2', { paymentMethod: 'pm_10', tokenizable: true })).then([]);
  });

  test('switch_to_charge: not with a method that cannot be stored, nor without the flag', () => {
    given(subscriptionDecider, history(create(collectInput({ switch_to_charge: true })))).when(paid('col_1', { paymentMethod: null, tokenizable: false })).then([]);
    given(subscriptionDecider, history(create(collectInput({ switch_to_charge: true })))).when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: false })).then([]);
    given(subscriptionDecider, active()).when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: true })).then([]);
  });

  test('switch_to_charge while trialing: activated, then switched', () => {
    const renewed: SubscriptionEvent = {
      type: 'subscription.updated',
      data: { id, customer: 'cus_1', status: 'trialing', meta_data: {}, changes: { latest_collection: 'col_2' }, reason: 'renewal' },
    };
    given(subscriptionDecider, [...history(create(collectInput({ switch_to_charge: true, trial_days: 7 }))), renewed])
      .when(paid('col_2', { paymentMethod: 'pm_9', tokenizable: true }))
      .then((events) => {
        expect(types(events)).toEqual(['subscription.activated', 'subscription.updated']);
        expect(events[1].data).toMatchObject({ status: 'active', reason: 'switch_to_charge' });
      });
  });

  test('a canceled subscription does not switch', () => {
    given(subscriptionDecider, history(create(collectInput({ switch_to_charge: true })), cancel('now'))).when(paid('col_1', { paymentMethod: 'pm_9', tokenizable: true })).then([]);
  });
});
