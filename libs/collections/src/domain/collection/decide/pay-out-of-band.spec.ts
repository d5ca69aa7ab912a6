import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { iso, ref, create, pse, start, outcome, payOutOfBand, voidIt, markUncollectible, awaiting, history, fieldsOf, types } from '../../testing/collection-fixtures.js';

describe('collection: paid out of band', () => {
  test('a pending collection is paid out of band, with or without a proof', () => {
    given(collectionDecider, history(create()))
      .when(payOutOfBand('https://files.example.com/receipt.pdf'))
      .then([
        {
          type: 'collection.paid',
          data: {
            ...ref,
            paid_date: iso(5),
            transaction: null,
            charge: null,
            payment_method: null,
            payment_method_gateway: null,
            payment_method_type: null,
            paid_out_of_band: true,
            out_of_band_proof: 'https://files.example.com/receipt.pdf',
            saved_payment_method: null,
            meta_data: { order: '42' },
          },
        },
      ]);
    const events = history(create(), payOutOfBand(null));
    expect(fieldsOf(events)).toMatchObject({ status: 'paid', paid_out_of_band: true, out_of_band_proof: null, paid_date: iso(5) });
  });

  test('an uncollectible collection can still be paid out of band', () => {
    given(collectionDecider, history(create(), markUncollectible())).when(payOutOfBand(null, 9)).then((events) => expect(types(events)).toEqual(['collection.paid']));
  });

  test('a proof that is not an http(s) URL is refused', () => {
    const e = given(collectionDecider, history(create())).when(payOutOfBand('ftp://x/y')).thenRejects('parameter_invalid', 'out_of_band_proof');
    expect(e.message).toBe('out_of_band_proof must be an http(s) URL');
  });

  test('refused while a payment is in flight or awaits the customer, and when voided', () => {
    const inFlight = given(collectionDecider, history(create(), start())).when(payOutOfBand(null)).thenRejects('payment_in_progress');
    expect(inFlight.message).toBe('Cannot pay out of band collection col_1: its status is collecting');
    const processing = given(collectionDecider, history(create(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(payOutOfBand(null)).thenRejects('payment_in_progress');
    expect(processing.message).toBe('Cannot pay out of band collection col_1: its status is processing');
    const voided = given(collectionDecider, history(create(), voidIt())).when(payOutOfBand(null, 9)).thenRejects('invalid_state');
    expect(voided.message).toBe('Cannot pay collection col_1: its status is voided');
  });
});
