import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionUpdated, collectionDecider } from '../../collection.decider.js';
import { id, amountOff, percentOff, create, deleteDiscount, history, fieldsOf } from '../../testing/collection-fixtures.js';

describe('collection: items and discounts', () => {
  test('deleting a discount recomputes the totals', () => {
    const past = history(create({ discounts: [amountOff('sd_1', '9000'), percentOff('sd_2', '5')] }));
    expect(fieldsOf(past).total).toBe('104050.00');
    given(collectionDecider, past)
      .when(deleteDiscount('sd_1'))
      .then((events) =>
        // 119000 - 5950 = 113050
        expect((events[0] as CollectionUpdated).data.changes).toMatchObject({ discounts: [{ id: 'sd_2' }], subtotal: '119000.00', total: '113050.00', discount_amounts: { sd_2: '5950.00' } }),
      );
    const e = given(collectionDecider, past).when(deleteDiscount('sd_9')).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such discount: 'sd_9'");
  });
});
