import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { MAX_CHARGES_PER_TRANSACTION, collectionDecider, transactionInFlight } from '../../collection.decider.js';
import { at, iso, id, ref, create, card, start, outcome, retry, succeeded, declined, flaky, history, stateOf, fieldsOf, types, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: a payment that fails', () => {
  test('a retryable failure records charge.failed only; RetryCharge makes a second charge that can succeed', () => {
    const afterFlaky = history(create(), start(), outcome('ch_1', flaky));
    expect(types(afterFlaky).slice(-1)).toEqual(['charge.failed']);
    expect(afterFlaky[afterFlaky.length - 1].data).toMatchObject({ retryable: true, failure_code: 'processing_error' });
    expect(fieldsOf(afterFlaky)).toMatchObject({ status: 'pending', collecting: true });
    expect(transactionInFlight(stateOf(afterFlaky))?.id).toBe('tx_1');

    given(collectionDecider, afterFlaky)
      .when(retry('tx_1', 'ch_2'))
      .then([
        {
          type: 'charge.created',
          data: {
            ...ref,
            collection: id,
            transaction: 'tx_1',
            charge: 'ch_2',
            try: 2,
            amount: '119000.00',
            currency: 'COP',
            payment_method: 'pm_1',
            gateway: 'gateway_a',
            payment_method_type: 'card',
            created_at: iso(3),
          },
        },
      ]);
    const paid = history(create(), start(), outcome('ch_1', flaky), retry('tx_1', 'ch_2'), outcome('ch_2', succeeded, 4));
    expect(types(paid)).toEqual(['collection.created', 'transaction.created', 'charge.created', 'charge.failed', 'charge.created', 'charge.paid', 'collection.paid']);
    expect(paid[paid.length - 1].data).toMatchObject({ transaction: 'tx_1', charge: 'ch_2' });
    expect(fieldsOf(paid)).toMatchObject({ status: 'paid', collection_attempts: 1 });
  });

  test(`a transaction holds at most ${MAX_CHARGES_PER_TRANSACTION} charges: a retry that fails again ends the attempt`, () => {
    given(collectionDecider, history(create(), start(), outcome('ch_1', flaky), retry('tx_1', 'ch_2')))
      .when(outcome('ch_2', flaky, 4))
      .then((events) => {
        expect(types(events)).toEqual(['charge.failed', 'collection.payment_failed']);
        expect(events[0].data).toMatchObject({ charge: 'ch_2', retryable: false });
        expect(events[1].data).toMatchObject({ transaction: 'tx_1', charge: 'ch_2', failure_code: 'processing_error' });
      });
    const ended = history(create(), start(), outcome('ch_1', flaky), retry('tx_1', 'ch_2'), outcome('ch_2', flaky, 4));
    const e = given(collectionDecider, ended).when(retry('tx_1', 'ch_3', 5)).thenRejects('invalid_state');
    expect(e.message).toBe('Transaction tx_1 is not in progress');
    given(collectionDecider, ended).when(start('tx_2', 'ch_3', card, 6)).then((events) => expect(events).toHaveLength(2));
  });

  test('RetryCharge is refused for an unknown, finished or non-retryable transaction, or one whose charge has no outcome yet', () => {
    expect(given(collectionDecider, history(create())).when(retry('tx_9', 'ch_2')).thenRejects('invalid_state').message).toBe('Transaction tx_9 is not in progress');
    expect(given(collectionDecider, history(create(), start())).when(retry('tx_1', 'ch_2')).thenRejects('invalid_state').message).toBe('Transaction tx_1 cannot be retried');
    given(collectionDecider, history(create(), start(), outcome('ch_1', declined))).when(retry('tx_1', 'ch_2')).thenRejects('invalid_state');
    given(collectionDecider, paidCollection()).when(retry('tx_1', 'ch_2')).thenRejects('invalid_state');
  });
});
