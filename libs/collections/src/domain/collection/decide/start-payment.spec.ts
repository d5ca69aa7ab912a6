import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionCommand, collectionDecider } from '../../collection.decider.js';
import { percentOff, create, card, pse, start, outcome, retry, payOutOfBand, refund, updateDiscounts, succeeded, declined, flaky, awaiting, history, fieldsOf, types, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: a payment that succeeds', () => {
  test('a merchant- or customer-initiated attempt says so', () => {
    given(collectionDecider, history(create()))
      .when({ ...start(), initiatedBy: 'customer' } as CollectionCommand)
      .then((events) => expect(events[0].data).toMatchObject({ initiated_by: 'customer' }));
  });

  test('a paid collection refuses another payment with collection_already_paid (409)', () => {
    const e = given(collectionDecider, paidCollection()).when(start('tx_2', 'ch_2')).thenRejects('collection_already_paid', null);
    expect(e.message).toBe('Cannot pay collection col_1: its status is paid');
    expect(e.status).toBe(409);
    const oob = given(collectionDecider, paidCollection()).when(payOutOfBand(null)).thenRejects('collection_already_paid');
    expect(oob.message).toBe('Cannot pay collection col_1: its status is paid');
    const refunded = history(create(), start(), outcome('ch_1', succeeded), refund(null));
    expect(given(collectionDecider, refunded).when(start('tx_2', 'ch_2')).thenRejects('collection_already_paid').message).toBe('Cannot pay collection col_1: its status is refunded');
  });

  test('a collection whose total is 0 cannot be charged', () => {
    // Pending with a 0 total: the discounts were changed after creation.
    const events = history(create(), updateDiscounts([percentOff('sd_1', '100')]));
    expect(fieldsOf(events)).toMatchObject({ status: 'pending', total: '0.00' });
    const e = given(collectionDecider, events).when(start()).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot pay collection col_1: its status is pending with a total of 0');
  });
});

describe('collection: a payment that fails', () => {
  test('after a decline a new attempt is allowed, and may succeed', () => {
    const failed = history(create(), start(), outcome('ch_1', declined));
    given(collectionDecider, failed)
      .when(start('tx_2', 'ch_2', card, 10))
      .then((events) => {
        expect(types(events)).toEqual(['transaction.created', 'charge.created']);
        expect(events[1].data).toMatchObject({ transaction: 'tx_2', charge: 'ch_2', try: 1 });
      });
    const events = history(create(), start(), outcome('ch_1', declined), start('tx_2', 'ch_2', card, 10), outcome('ch_2', succeeded, 11));
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', collection_attempts: 2, latest_transaction: 'tx_2' });
    expect(events[events.length - 1].data).toMatchObject({ transaction: 'tx_2', charge: 'ch_2' });
  });
});

describe('collection: one payment at a time', () => {
  test('a second StartPayment while one is in flight is refused with payment_in_progress (409)', () => {
    const e = given(collectionDecider, history(create(), start())).when(start('tx_2', 'ch_2')).thenRejects('payment_in_progress', null);
    expect(e.message).toBe('Cannot pay collection col_1: another payment attempt is in progress');
    expect(e.status).toBe(409);
    // Also while a retryable failure awaits its retry.
    given(collectionDecider, history(create(), start(), outcome('ch_1', flaky))).when(start('tx_2', 'ch_2')).thenRejects('payment_in_progress');
  });

  test('while processing, StartPayment is refused with payment_in_progress; the same pending outcome again records nothing', () => {
    const processing = history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting));
    const e = given(collectionDecider, processing).when(start('tx_2', 'ch_2', card, 5)).thenRejects('payment_in_progress', null);
    expect(e.message).toBe('Cannot pay collection col_1: its status is processing (a payment awaits the customer)');
    expect(e.status).toBe(409);
    given(collectionDecider, processing).when(outcome('ch_1', awaiting, 6)).then([]);
  });
});
