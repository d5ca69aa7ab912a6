import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { iso, ref, collect, start, outcome, pse, awaiting, voidIt, history, fieldsOf, types, applyPayment, credit, reverseCredit, updateItems, line } from '../../testing/collection-fixtures.js';

describe('collection: a credit note of its invoice applied', () => {
  test('a partial credit lowers what the collection asks and records the credit note', () => {
    given(collectionDecider, history(collect()))
      .when(credit('19000', '119000.00'))
      .then([
        {
          type: 'collection.credited',
          data: {
            ...ref,
            credit_note: 'cn_1',
            invoice: 'inv_1',
            amount: '19000.00',
            amount_credited: '19000.00',
            previous_total: '119000.00',
            total: '100000.00',
            credited_at: iso(5),
            meta_data: { order: '42' },
          },
        },
      ]);
    const f = fieldsOf(history(collect(), credit('19000', '119000.00')));
    expect(f).toMatchObject({ status: 'pending', total: '100000.00', subtotal: '119000.00', amount_credited: '19000.00', credit_notes: [{ credit_note: 'cn_1', amount: '19000.00', voided: false }] });
  });

  test('a credit to zero settles the collection like a payment in full, without money', () => {
    given(collectionDecider, history(collect()))
      .when(credit('119000', '119000.00'))
      .then((events) => {
        expect(types(events)).toEqual(['collection.credited', 'collection.paid']);
        expect(events[1].data).toMatchObject({ ...ref, paid_date: iso(5), transaction: null, paid_out_of_band: false, credit_note: 'cn_1' });
      });
    expect(fieldsOf(history(collect(), credit('119000', '119000.00')))).toMatchObject({ status: 'paid', total: '0.00', settled_by_credit_note: 'cn_1' });
  });

  test('the same credit note twice records nothing', () => {
    given(collectionDecider, history(collect(), credit('19000', '119000.00'))).when(credit('19000', '100000.00')).then([]);
  });

  test('more than the collection asks, a stale total, a closed collection and an attempt in flight are refused', () => {
    given(collectionDecider, history(collect())).when(credit('119000.01', '119000.00')).thenRejects('credit_note_exceeds_balance', 'amount');
    // A registered payment lowered it after the caller looked: the credit is decided again by the caller.
    given(collectionDecider, history(collect(), applyPayment('100000', '119000.00'))).when(credit('19000', '119000.00')).thenRejects('concurrent_update');
    given(collectionDecider, history(collect(), voidIt())).when(credit('1000', '119000.00')).thenRejects('invalid_state');
    given(collectionDecider, history(collect(), applyPayment('119000', '119000.00'))).when(credit('1000', '119000.00')).thenRejects('invalid_state');
    given(collectionDecider, history(collect(), start())).when(credit('1000', '119000.00')).thenRejects('payment_in_progress');
    given(collectionDecider, history(collect(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(credit('1000', '119000.00')).thenRejects('payment_in_progress');
  });

  test('the next charge attempt asks only what is left', () => {
    const events = history(collect(), credit('19000', '119000.00'), start());
    expect(events.find((e) => e.type === 'transaction.created')!.data).toMatchObject({ amount: '100000.00' });
  });

  test('items cannot be changed once a credit note is applied (the total is set directly)', () => {
    given(collectionDecider, history(collect(), credit('19000', '119000.00'))).when(updateItems([line({ quantity: 3 })])).thenRejects('invalid_state');
  });
});

describe('collection: a credit note voided', () => {
  test('what it took off is asked again', () => {
    given(collectionDecider, history(collect(), credit('19000', '119000.00')))
      .when(reverseCredit())
      .then([
        {
          type: 'collection.credit_reversed',
          data: {
            ...ref,
            credit_note: 'cn_1',
            invoice: null,
            amount: '19000.00',
            amount_credited: '0.00',
            previous_total: '100000.00',
            total: '119000.00',
            reversed_at: iso(6),
            meta_data: { order: '42' },
          },
        },
      ]);
    const f = fieldsOf(history(collect(), credit('19000', '119000.00'), reverseCredit()));
    expect(f).toMatchObject({ total: '119000.00', amount_credited: '0.00', credit_notes: [{ credit_note: 'cn_1', voided: true }] });
  });

  test('a credit note never applied, or already reversed, records nothing', () => {
    given(collectionDecider, history(collect())).when(reverseCredit()).then([]);
    given(collectionDecider, history(collect(), credit('19000', '119000.00'), reverseCredit())).when(reverseCredit('cn_1', 7)).then([]);
  });

  test('refused once the collection is closed: settled by the credit itself, or paid', () => {
    const settled = given(collectionDecider, history(collect(), credit('119000', '119000.00'))).when(reverseCredit()).thenRejects('invalid_state');
    expect(settled.message).toBe('Cannot void credit note cn_1: collection col_1 is paid (settled by credit note cn_1) and cannot ask for the credited amount again');
    given(collectionDecider, history(collect(), credit('19000', '119000.00'), applyPayment('100000', '100000.00'))).when(reverseCredit()).thenRejects('invalid_state');
    given(collectionDecider, history(collect(), credit('19000', '119000.00'), start())).when(reverseCredit()).thenRejects('payment_in_progress');
  });
});
