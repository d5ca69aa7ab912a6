import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { ref, create, card, start, outcome, abandon, declined, flaky, history, fieldsOf, types, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: a payment that fails', () => {
  test('AbandonTransaction closes an attempt whose retry never ran, so that a new one can start', () => {
    const stuck = history(create(), start(), outcome('ch_1', flaky));
    given(collectionDecider, stuck)
      .when(abandon('tx_1'))
      .then([
        {
          type: 'collection.payment_failed',
          data: {
            ...ref,
            transaction: 'tx_1',
            charge: 'ch_1',
            failure_code: 'processing_error',
            failure_message: 'The payment attempt was not completed.',
            decline_code: null,
            meta_data: { order: '42' },
          },
        },
      ]);
    const abandoned = history(create(), start(), outcome('ch_1', flaky), abandon('tx_1'));
    expect(fieldsOf(abandoned)).toMatchObject({ status: 'pending', collecting: false });
    given(collectionDecider, abandoned).when(start('tx_2', 'ch_2', card, 61)).then((events) => expect(types(events)).toEqual(['transaction.created', 'charge.created']));
  });

  test('AbandonTransaction records nothing for a charge still without an outcome, a finished or an unknown transaction', () => {
    given(collectionDecider, history(create(), start())).when(abandon('tx_1')).then([]);
    given(collectionDecider, paidCollection()).when(abandon('tx_1')).then([]);
    given(collectionDecider, history(create(), start(), outcome('ch_1', declined))).when(abandon('tx_1')).then([]);
    given(collectionDecider, history(create())).when(abandon('tx_9')).then([]);
  });
});
