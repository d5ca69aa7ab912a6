import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionEvent, collectionDecider } from '../../collection.decider.js';
import { iso, ref, create, pse, start, outcome, voidIt, markUncollectible, refund, succeeded, awaiting, history, fieldsOf, types, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: void and uncollectible', () => {
  test('a pending collection is voided', () => {
    given(collectionDecider, history(create())).when(voidIt()).then([{ type: 'collection.voided', data: { ...ref, voided_at_date: iso(5) } }]);
    expect(fieldsOf(history(create(), voidIt()))).toMatchObject({ status: 'voided', voided_at_date: iso(5), next_collection_attempt_date: null });
  });

  test('an uncollectible collection can be voided', () => {
    given(collectionDecider, history(create(), markUncollectible())).when(voidIt(9)).then((events) => expect(types(events)).toEqual(['collection.voided']));
  });

  test('void is refused (409 naming the status) when paid, voided, refunded or processing, and while a payment is in flight', () => {
    const refusal = (past: CollectionEvent[], status: string) => {
      const e = given(collectionDecider, past).when(voidIt(20)).thenRejects('invalid_state');
      expect(e.message).toBe(`Cannot void collection col_1: its status is ${status}`);
      expect(e.status).toBe(409);
    };
    refusal(paidCollection(), 'paid');
    refusal(history(create(), voidIt()), 'voided');
    refusal(history(create(), start(), outcome('ch_1', succeeded), refund(null)), 'refunded');
    refusal(history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting)), 'processing');
    const e = given(collectionDecider, history(create(), start())).when(voidIt()).thenRejects('payment_in_progress');
    expect(e.message).toBe('Cannot void collection col_1: its status is collecting');
  });
});
