/** SetShipping and SetShippingItem (set-shipping-item.ts). */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type SubscriptionCommand, subscriptionDecider } from '../../subscription.decider.js';
import { at, owner, id, create, collectInput, history, fieldsOf, active, canceled } from '../../testing/subscription-fixtures.js';

describe('subscription: shipping', () => {
  const shipping = {
    name: 'Ana Gómez',
    phone: '+57 300 123 4567',
    address: { address_1: 'Calle 100 # 8A-55', address_2: null, city: 'Bogotá', state: 'Cundinamarca', postcode: '110111', country: 'CO' },
  };
  const setShipping = (s: typeof shipping | null): SubscriptionCommand => ({ type: 'SetShipping', owner, subscriptionId: id, shipping: s, now: at(2) });
  const setShippingItem = (s: { description: string; amount: string } | null): SubscriptionCommand => ({ type: 'SetShippingItem', owner, subscriptionId: id, shippingItem: s, now: at(2) });

  test('the shipping address is set and cleared', () => {
    given(subscriptionDecider, active())
      .when(setShipping(shipping))
      .then((events) => expect(events[0]).toMatchObject({ type: 'subscription.updated', data: { status: 'active', reason: 'api', changes: { shipping } } }));
    expect(fieldsOf(history(create(collectInput()), setShipping(shipping))).shipping).toEqual(shipping);
    expect(fieldsOf(history(create(collectInput()), setShipping(shipping), setShipping(null))).shipping).toBeNull();
  });

  test('the shipping item is set with its amount in the subscription currency, and cleared', () => {
    given(subscriptionDecider, active())
      .when(setShippingItem({ description: ' Envío nacional ', amount: '15000' }))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { shipping_item: { description: 'Envío nacional', amount: '15000.00' } } }));
    given(subscriptionDecider, active()).when(setShippingItem(null)).then((events) => expect(events[0].data).toMatchObject({ changes: { shipping_item: null } }));
  });

  test('a shipping item needs a positive amount and a description', () => {
    given(subscriptionDecider, active()).when(setShippingItem({ description: 'Envío', amount: '0' })).thenRejects('parameter_invalid');
    given(subscriptionDecider, active()).when(setShippingItem({ description: 'Envío', amount: '1.001' })).thenRejects('parameter_invalid');
    given(subscriptionDecider, active()).when(setShippingItem({ description: '  ', amount: '15000' })).thenRejects('parameter_missing');
  });

  test('a final subscription refuses shipping changes (409 naming the state)', () => {
    expect(given(subscriptionDecider, canceled()).when(setShipping(shipping)).thenRejects('invalid_state').message).toBe(
      'Cannot change the shipping of subscription sub_1: its status is canceled',
    );
    expect(given(subscriptionDecider, canceled()).when(setShippingItem(null)).thenRejects('invalid_state').message).toBe(
      'Cannot change the shipping item of subscription sub_1: its status is canceled',
    );
  });
});
