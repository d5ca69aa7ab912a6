/** The rules the deciders share: the discounts of the next collection. */
import { describe, expect, test } from '@jest/globals';
import { discountsForNextCollection } from '../subscription.decider.js';
import { create, history, fieldsOf } from '../testing/subscription-fixtures.js';

describe('discounts for the next collection', () => {
  const discounts = [
    { code: 'FIRST', amount: '1000', duration_in_collections: 1 },
    { code: 'THREE', amount: '500', duration_in_collections: 3 },
    { code: 'ALWAYS', percent: '10' },
  ];

  test('a discount limited to n collections stops after the n-th; one without a limit always applies', () => {
    // A charge subscription counts its first collection: the next is cycle 2.
    const f = fieldsOf(history(create({ discounts })));
    expect(f.collections_count).toBe(1);
    expect(discountsForNextCollection(f).map((d) => d.code)).toEqual(['THREE', 'ALWAYS']);
    expect(discountsForNextCollection({ ...f, collections_count: 3 }).map((d) => d.code)).toEqual(['ALWAYS']);
  });

  test('a trial has counted no collection yet; a trial collection gets every discount', () => {
    const f = fieldsOf(history(create({ discounts, trial_days: 14 })));
    expect(f.collections_count).toBe(0);
    expect(discountsForNextCollection(f).map((d) => d.code)).toEqual(['FIRST', 'THREE', 'ALWAYS']);
    expect(discountsForNextCollection({ ...f, collections_count: 5 }, true).map((d) => d.code)).toEqual(['FIRST', 'THREE', 'ALWAYS']);
  });
});
