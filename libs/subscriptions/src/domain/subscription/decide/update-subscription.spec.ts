/** UpdateSubscription. */
import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { MESSAGES, subscriptionDecider } from '../../subscription.decider.js';
import { id, monthly, monthlyAddon, quarterly, yearly, setup, product, setupProduct, item, create, collectInput, update, history, fieldsOf, createdIn, incomplete, active, paused, pendingCancel, canceled } from '../../testing/subscription-fixtures.js';

describe('subscription: update', () => {
  test('items: change a quantity, add a one-time item; the result is recorded whole', () => {
    given(subscriptionDecider, active())
      .when(update({ items: [{ id: 'si_1', quantity: 3 }, { newId: 'si_2', price: setup, product: setupProduct }] }))
      .then((events) => {
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
          type: 'subscription.updated',
          data: {
            id,
            customer: 'cus_1',
            status: 'active',
            reason: 'api',
            changes: {
              items: [
                { id: 'si_1', price: monthly, product, quantity: 3, amount: null },
                { id: 'si_2', price: setup, product: setupProduct, quantity: 1, amount: null },
              ],
            },
          },
        });
      });
  });

  test('items: delete one, replace a price on the same frequency', () => {
    const two = history(create(collectInput({ items: [item(monthly), item(monthlyAddon, { newId: 'si_2' })] })));
    given(subscriptionDecider, two)
      .when(update({ items: [{ id: 'si_2', deleted: true }, { id: 'si_1', price: monthlyAddon, product }] }))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { items: [{ id: 'si_1', price: monthlyAddon, quantity: 1 }] } }));
    const after = history(create(collectInput({ items: [item(monthly), item(monthlyAddon, { newId: 'si_2' })] })), update({ items: [{ id: 'si_2', deleted: true }] }));
    expect(fieldsOf(after).items.map((i) => i.id)).toEqual(['si_1']);
    // The event names the items the change removed.
    given(subscriptionDecider, two).when(update({ items: [{ id: 'si_2', deleted: true }] })).then((events) => expect(events[0].data).toMatchObject({ removed_items: ['si_2'] }));
    given(subscriptionDecider, two).when(update({ items: [{ id: 'si_2', quantity: 2 }] })).then((events) => expect(events[0].data).toMatchObject({ removed_items: [] }));
  });

  test('items: a frequency other than the subscription’s is refused with the spec message', () => {
    // The items alone disagree …
    expect(given(subscriptionDecider, active()).when(update({ items: [{ newId: 'si_2', price: yearly, product }] })).thenRejects('parameter_invalid', 'items').message).toBe(
      MESSAGES.sameFrequency,
    );
    // … or agree among themselves but not with the subscription.
    expect(given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_1', price: quarterly, product }] })).thenRejects('parameter_invalid', 'items').message).toBe(
      'All prices must have the same frequency (billing_period and billing_interval)',
    );
  });

  test('items: unknown ids, a delete without id, no recurring price left, bad quantities', () => {
    const e = given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_9', quantity: 2 }] })).thenRejects('resource_missing', 'items[0][id]');
    expect(e.message).toBe("No such subscription item: 'si_9'");
    given(subscriptionDecider, active()).when(update({ items: [{ deleted: true }] })).thenRejects('parameter_invalid', 'items[0][deleted]');
    expect(given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_1', deleted: true }] })).thenRejects('parameter_invalid', 'items').message).toBe(
      'A subscription needs at least one recurring price',
    );
    given(subscriptionDecider, active()).when(update({ items: [{ id: 'si_1', quantity: 0 }] })).thenRejects('parameter_invalid', 'items[0][quantity]');
    given(subscriptionDecider, active()).when(update({ items: [{ newId: 'si_2' }] })).thenRejects('parameter_missing', 'items[0][price]');
  });

  test('discounts are replaced, with new ids', () => {
    given(subscriptionDecider, history(create(collectInput({ discounts: [{ code: 'OLD', amount: '1000' }] }))))
      .when(update({ discounts: [{ code: 'SUMMER', percent: '15', duration_in_collections: 3 }] }))
      .then((events) =>
        expect(events[0].data).toMatchObject({ changes: { discounts: [{ id: 'sd_4', code: 'SUMMER', amount: null, percent: '15', duration_in_collections: 3 }] } }),
      );
    given(subscriptionDecider, active()).when(update({ discounts: [{ code: 'X', percent: '150' }] })).thenRejects('parameter_invalid', 'discounts[0][percent]');
  });

  test('payment_method of a charge subscription: replaced by a usable one, never removed', () => {
    given(subscriptionDecider, incomplete())
      .when(update({ payment_method: 'pm_2' }))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { payment_method: 'pm_2', payment_information: null }, status: 'incomplete' }));
    expect(given(subscriptionDecider, incomplete()).when(update({ payment_method: 'pm_2' }, { requestedUsable: false })).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      "No such payment method for this customer: 'pm_2'",
    );
    expect(given(subscriptionDecider, incomplete()).when(update({ payment_method: null })).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      'payment_method cannot be removed from a charge subscription',
    );
    expect(given(subscriptionDecider, active()).when(update({ payment_method: 'pm_2' })).thenRejects('parameter_invalid', 'payment_method').message).toBe(
      'payment_method is only allowed with collection_method charge',
    );
  });

  test('days_until_due: only for collect', () => {
    given(subscriptionDecider, active()).when(update({ days_until_due: 10 })).then((events) => expect(events[0].data).toMatchObject({ changes: { days_until_due: 10 } }));
    expect(given(subscriptionDecider, incomplete()).when(update({ days_until_due: 10 })).thenRejects('parameter_invalid', 'days_until_due').message).toBe(
      'days_until_due is only allowed for collection_method charge',
    );
    given(subscriptionDecider, active()).when(update({ days_until_due: -1 })).thenRejects('parameter_invalid', 'days_until_due');
  });

  test('meta_data merges ("" removes a key) and the event carries the merged meta_data', () => {
    given(subscriptionDecider, history(create(collectInput({ meta_data: { a: '1', b: '2' } }))))
      .when(update({ meta_data: { a: '', c: '3' } }))
      .then((events) => expect(events[0].data).toMatchObject({ meta_data: { b: '2', c: '3' }, changes: { meta_data: { b: '2', c: '3' } } }));
    given(subscriptionDecider, active()).when(update({ meta_data: { k: 'v'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
    const after = history(create(collectInput({ meta_data: { a: '1', b: '2' } })), update({ meta_data: { a: '', c: '3' } }));
    expect(fieldsOf(after).meta_data).toEqual({ b: '2', c: '3' });
  });

  test('renewal_invoicing, invoice_settings (merged) and invoice_retentions (merged, checked)', () => {
    given(subscriptionDecider, history(create(collectInput({ invoice_settings: { invoice_document_id: 'DOC-1' }, invoice_retentions: { retefte: '2.5' } }))))
      .when(update({ renewal_invoicing: false, invoice_settings: { invoice_cost_center: 'CC-1' }, invoice_retentions: { reteica: '9.66' } }))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          changes: {
            renewal_invoicing: false,
            invoice_settings: { invoice_document_id: 'DOC-1', invoice_cost_center: 'CC-1' },
            invoice_retentions: { reteiva: null, reteica: '9.66', retefte: '2.5' },
          },
        }),
      );
    given(subscriptionDecider, active()).when(update({ invoice_retentions: { reteica: 'abc' } })).thenRejects('parameter_invalid', 'invoice_retentions[reteica]');
  });

  test('nothing to change records nothing', () => {
    given(subscriptionDecider, active()).when(update({})).then([]);
  });

  test('a paused or pending_cancel subscription can still be updated; a final one cannot (409 naming the state)', () => {
    given(subscriptionDecider, paused()).when(update({ meta_data: { a: '1' } })).then((events) => expect(events[0].data).toMatchObject({ status: 'paused' }));
    given(subscriptionDecider, pendingCancel()).when(update({ meta_data: { a: '1' } })).then((events) => expect(events).toHaveLength(1));
    for (const [past, status] of [
      [canceled(), 'canceled'],
      [createdIn('ended'), 'ended'],
      [createdIn('expired'), 'expired'],
    ] as const) {
      const e = given(subscriptionDecider, past).when(update({ meta_data: { a: '1' } })).thenRejects('invalid_state', null);
      expect(e.message).toBe(`Cannot update subscription sub_1: its status is ${status}`);
      expect(e.status).toBe(409);
    }
  });
});
