import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { iso, ref, line, create, start, outcome, payOutOfBand, refund, succeeded, history, fieldsOf, paidCollection } from '../../testing/collection-fixtures.js';

describe('collection: refund', () => {
  test('a full refund (no amount) refunds what is left: status refunded', () => {
    given(collectionDecider, paidCollection())
      .when(refund(null))
      .then([
        {
          type: 'collection.refunded',
          data: { ...ref, refund: 're_1', amount: '119000.00', amount_refunded: '119000.00', status: 'refunded', charge: 'ch_1', reason: 'requested_by_customer', refunded_at: iso(10) },
        },
      ]);
    expect(fieldsOf(history(create(), start(), outcome('ch_1', succeeded), refund(null)))).toMatchObject({ status: 'refunded', amount_refunded: '119000.00' });
  });

  test('a partial refund keeps the collection paid with amount_refunded; refunding the rest makes it refunded', () => {
    const partial = history(create(), start(), outcome('ch_1', succeeded), refund('19000'));
    expect(partial[partial.length - 1].data).toMatchObject({ amount: '19000.00', amount_refunded: '19000.00', status: 'paid' });
    expect(fieldsOf(partial)).toMatchObject({ status: 'paid', amount_refunded: '19000.00' });
    given(collectionDecider, partial)
      .when(refund(null, 're_2', 11))
      .then((events) => expect(events[0].data).toMatchObject({ refund: 're_2', amount: '100000.00', amount_refunded: '119000.00', status: 'refunded' }));
    given(collectionDecider, partial)
      .when(refund('100000.00', 're_2', 11))
      .then((events) => expect(events[0].data).toMatchObject({ amount: '100000.00', amount_refunded: '119000.00', status: 'refunded' }));
  });

  test('more than what is left to refund is refused', () => {
    const e = given(collectionDecider, paidCollection()).when(refund('119000.01')).thenRejects('parameter_invalid', 'amount');
    expect(e.message).toBe('amount must be at most the refundable 119000.00 COP');
    const partial = history(create(), start(), outcome('ch_1', succeeded), refund('19000'));
    expect(given(collectionDecider, partial).when(refund('100000.01', 're_2')).thenRejects('parameter_invalid', 'amount').message).toBe(
      'amount must be at most the refundable 100000.00 COP',
    );
  });

  test('a refund amount must be a positive amount with the currency digits', () => {
    for (const bad of ['0', '-5', 'abc', '1e3']) {
      expect(given(collectionDecider, paidCollection()).when(refund(bad)).thenRejects('parameter_invalid', 'amount').message).toBe('amount must be a positive decimal amount');
    }
    expect(given(collectionDecider, paidCollection()).when(refund('1.001')).thenRejects('parameter_invalid', 'amount').message).toBe('amount has more decimals than COP allows (2)');
  });

  test('only a paid collection is refunded (409 naming the status)', () => {
    expect(given(collectionDecider, history(create())).when(refund(null)).thenRejects('invalid_state').message).toBe('Cannot refund collection col_1: its status is pending');
    const refunded = history(create(), start(), outcome('ch_1', succeeded), refund(null));
    expect(given(collectionDecider, refunded).when(refund(null, 're_2')).thenRejects('invalid_state').message).toBe('Cannot refund collection col_1: its status is refunded');
  });

  test('a collection paid at 0 has nothing to refund', () => {
    const free = history(create({ lines: [line({ free: true })] }));
    const e = given(collectionDecider, free).when(refund(null)).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot refund collection col_1: its status is paid with nothing left to refund');
  });

  test('a collection paid out of band is refunded without a charge', () => {
    given(collectionDecider, history(create(), payOutOfBand(null)))
      .when(refund(null))
      .then((events) => expect(events[0].data).toMatchObject({ charge: null, status: 'refunded', amount: '119000.00' }));
  });
});
