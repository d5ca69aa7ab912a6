import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { iso, ref, create, collect, pse, start, outcome, voidIt, markUncollectible, send, awaiting, history, types, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: send', () => {
  test('a pending or processing collection is sent (again) with its checkout url', () => {
    given(collectionDecider, history(collect()))
      .when(send(60))
      .then([{ type: 'collection.sent', data: { ...ref, sent_at: iso(60), checkout_url: 'https://checkout.test/col/col_1' } }]);
    given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(send()).then((events) => expect(types(events)).toEqual(['collection.sent']));
  });

  test('refused (409 naming the status) once paid, voided or uncollectible', () => {
    expect(given(collectionDecider, paidCollection()).when(send()).thenRejects('invalid_state').message).toBe('Cannot send collection col_1: its status is paid');
    expect(given(collectionDecider, history(create(), voidIt())).when(send(9)).thenRejects('invalid_state').message).toBe('Cannot send collection col_1: its status is voided');
    given(collectionDecider, history(create(), markUncollectible())).when(send(9)).thenRejects('invalid_state');
  });
});
