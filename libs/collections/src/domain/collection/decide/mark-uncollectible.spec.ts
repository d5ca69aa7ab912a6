import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionEvent, collectionDecider } from '../../collection.decider.js';
import { iso, ref, create, card, pse, start, outcome, voidIt, markUncollectible, succeeded, awaiting, history, fieldsOf, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: void and uncollectible', () => {
  test('a pending collection is marked uncollectible and can still be paid', () => {
    given(collectionDecider, history(create())).when(markUncollectible()).then([{ type: 'collection.uncollectible', data: { ...ref, marked_at: iso(5) } }]);
    const events = history(create(), markUncollectible());
    expect(fieldsOf(events)).toMatchObject({ status: 'uncollectible' });
    const paid = history(create(), markUncollectible(), start('tx_1', 'ch_1', card, 6), outcome('ch_1', succeeded, 7));
    expect(fieldsOf(paid).status).toBe('paid');
  });

  test('mark uncollectible is refused (409 naming the status) outside pending/past_due, and while a payment is in flight', () => {
    const refusal = (past: CollectionEvent[], status: string) => {
      const e = given(collectionDecider, past).when(markUncollectible(20)).thenRejects('invalid_state');
      expect(e.message).toBe(`Cannot mark uncollectible collection col_1: its status is ${status}`);
    };
    refusal(history(create(), markUncollectible()), 'uncollectible');
    refusal(paidCollection(), 'paid');
    refusal(history(create(), voidIt()), 'voided');
    refusal(history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting)), 'processing');
    const e = given(collectionDecider, history(create(), start())).when(markUncollectible()).thenRejects('payment_in_progress');
    expect(e.message).toBe('Cannot mark uncollectible collection col_1: its status is collecting');
  });
});
