import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionUpdated, collectionDecider } from '../../collection.decider.js';
import { id, price, line, rate, amountOff, percentOff, create, updateDiscounts, history, fieldsOf } from '../../testing/collection-fixtures.js';

describe('collection: items and discounts', () => {
  test('new discounts recompute the totals and keep the items and the conversion rates', () => {
    const usd = rate('USD', '4000');
    const converted = history(create({ lines: [line({ price: price('29.75', { currency: 'USD' }), quantity: 1, rate: usd })] }));
    given(collectionDecider, converted)
      .when(updateDiscounts([amountOff('sd_1', '9000'), percentOff('sd_2', '5')]))
      .then((events) => {
        // 119000 - 9000 - 5% of 119000 (5950) = 104050
        expect((events[0] as CollectionUpdated).data.changes).toEqual({
          items: fieldsOf(converted).items,
          discounts: [
            { id: 'sd_1', code: 'WELCOME', amount: '9000.00', percent: null },
            { id: 'sd_2', code: 'TENOFF', amount: null, percent: '5' },
          ],
          subtotal: '119000.00',
          total: '104050.00',
          exchange_rates: [usd],
          discount_amounts: { sd_1: '9000.00', sd_2: '5950.00' },
        });
      });
    given(collectionDecider, converted).when(updateDiscounts([percentOff('sd_1', '101')])).thenRejects('parameter_invalid', 'discounts[0][percent]');
  });
});
