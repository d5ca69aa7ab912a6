import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { id, ref, price, oneTime, product, setupProduct, line, setupLine, rate, percentOff, create, pse, start, outcome, markUncollectible, updateItems, updateDiscounts, deleteDiscount, awaiting, history, fieldsOf, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: items and discounts', () => {
  test('new items are priced and the totals recomputed with the discounts kept', () => {
    const past = history(create({ discounts: [percentOff('sd_1', '10')] }));
    given(collectionDecider, past)
      .when(updateItems([line({ quantity: 3 }), setupLine()]))
      .then((events) => {
        // 3 × 59500 = 178500 + 19000 = 197500; 10% = 19750 → 177750
        expect(events).toEqual([
          {
            type: 'collection.updated',
            data: {
              ...ref,
              changes: {
                items: [
                  { id: 'si_1', name: 'Plan Pro', unit_price: '59500.00', subtotal: '178500.00', total: '178500.00', quantity: 3, product, price: price('59500.00') },
                  { id: 'si_2', name: 'Instalación', unit_price: '19000.00', subtotal: '19000.00', total: '19000.00', quantity: 1, product: setupProduct, price: oneTime('19000.00') },
                ],
                discounts: [{ id: 'sd_1', code: 'TENOFF', amount: null, percent: '10' }],
                subtotal: '197500.00',
                total: '177750.00',
                exchange_rates: [],
                discount_amounts: { sd_1: '19750.00' },
              },
            },
          },
        ]);
      });
    const after = history(create({ discounts: [percentOff('sd_1', '10')] }), updateItems([line({ quantity: 3 }), setupLine()]));
    expect(fieldsOf(after)).toMatchObject({ subtotal: '197500.00', total: '177750.00', status: 'pending' });
    // The next attempt charges the new total.
    given(collectionDecider, after).when(start()).then((events) => expect(events[0].data).toMatchObject({ amount: '177750.00' }));
  });

  test('new items in another currency bring their rate; items in the collection currency drop the old one', () => {
    const usd = rate('USD', '4000');
    const converted = history(create({ lines: [line({ price: price('29.75', { currency: 'USD' }), quantity: 1, rate: usd })] }));
    expect(fieldsOf(converted).exchange_rates).toEqual([usd]);
    given(collectionDecider, converted)
      .when(updateItems([line({ price: price('29.75', { currency: 'USD' }), quantity: 2, rate: usd })]))
      .then((events) => expect(events[0].data).toMatchObject({ changes: { subtotal: '238000.00', exchange_rates: [usd] } }));
    given(collectionDecider, converted).when(updateItems([line()])).then((events) => expect(events[0].data).toMatchObject({ changes: { total: '119000.00', exchange_rates: [] } }));
  });

  test('items must not be empty', () => {
    expect(given(collectionDecider, history(create())).when(updateItems([])).thenRejects('parameter_invalid', 'items').message).toBe('items must have at least one item');
  });

  test('refused (409 naming the status) once paid or processing, and while a payment is in flight', () => {
    expect(given(collectionDecider, paidCollection()).when(updateItems([line()])).thenRejects('invalid_state').message).toBe('Cannot modify the items of collection col_1: its status is paid');
    expect(given(collectionDecider, paidCollection()).when(updateDiscounts([])).thenRejects('invalid_state').message).toBe('Cannot modify the discounts of collection col_1: its status is paid');
    given(collectionDecider, paidCollection()).when(deleteDiscount('sd_1')).thenRejects('invalid_state');
    given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(updateItems([line()])).thenRejects('invalid_state');
    given(collectionDecider, history(create(), markUncollectible())).when(updateItems([line()])).thenRejects('invalid_state');
    const e = given(collectionDecider, history(create(), start())).when(updateItems([line()])).thenRejects('payment_in_progress');
    expect(e.message).toBe('Cannot modify the items of collection col_1: its status is collecting');
    given(collectionDecider, history(create(), start())).when(updateDiscounts([])).thenRejects('payment_in_progress');
  });
});
