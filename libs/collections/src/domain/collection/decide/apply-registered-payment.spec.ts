import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import type { CommandOf } from '../collection.commands.js';
import { iso, ref, collect, start, payOutOfBand, voidIt, history, fieldsOf, applyPayment } from '../../testing/collection-fixtures.js';

describe('collection: a registered payment applied', () => {
  test('an amount that covers the total pays it out of band, naming the receipt', () => {
    given(collectionDecider, history(collect()))
      .when(applyPayment('119000', '119000.00'))
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
            out_of_band_proof: null,
            saved_payment_method: null,
            meta_data: { order: '42' },
            paid_by: 'col_r',
          },
        },
      ]);
    expect(fieldsOf(history(collect(), applyPayment('119000', '119000.00')))).toMatchObject({ status: 'paid', paid_by: 'col_r', paid_out_of_band: true });
  });

  test('a smaller amount lowers the total and adds to amount_applied', () => {
    given(collectionDecider, history(collect()))
      .when(applyPayment('19000', '119000.00'))
      .then([
        {
          type: 'collection.payment_applied',
          data: { ...ref, receipt: 'col_r', amount: '19000.00', amount_applied: '19000.00', previous_total: '119000.00', total: '100000.00', applied_at: iso(5), meta_data: { order: '42' } },
        },
      ]);
    const twice = history(collect(), applyPayment('19000', '119000.00'), applyPayment('50000.5', '100000', 'col_s', 6));
    expect(fieldsOf(twice)).toMatchObject({ status: 'pending', total: '49999.50', subtotal: '119000.00', amount_applied: '69000.50', paid_by: null });
    expect(fieldsOf(history(...[collect(), applyPayment('19000', '119000.00'), applyPayment('100000', '100000.00', 'col_s', 6)]))).toMatchObject({
      status: 'paid',
      paid_by: 'col_s',
      amount_applied: '19000.00',
    });
  });

  test('refused when the collection changed since the plan, is paid, voided or being collected', () => {
    const e = given(collectionDecider, history(collect())).when(applyPayment('1', '100.00')).thenRejects('concurrent_update');
    expect(e.status).toBe(409);
    expect(e.message).toBe('Collection col_1 changed while the payment was being applied: its total is 119000.00, not 100.00');
    given(collectionDecider, history(collect(), payOutOfBand(null))).when(applyPayment('1', '119000.00', 'col_r', 9)).thenRejects('collection_already_paid');
    given(collectionDecider, history(collect(), voidIt())).when(applyPayment('1', '119000.00', 'col_r', 9)).thenRejects('invalid_state');
    given(collectionDecider, history(collect(), start())).when(applyPayment('1', '119000.00')).thenRejects('payment_in_progress');
    given(collectionDecider, history(collect())).when(applyPayment('119000.01', '119000.00')).thenRejects('parameter_invalid', 'amount');
  });

  test('an amount that settles the fiscal invoice (credit notes took the rest off) lowers the total by it and pays the collection', () => {
    given(collectionDecider, history(collect()))
      .when(({ ...applyPayment('100000', '119000.00'), settlesInvoice: true }) as CommandOf<'ApplyRegisteredPayment'>)
      .then((events) => {
        expect(events.map((e) => e.type)).toEqual(['collection.payment_applied', 'collection.paid']);
        expect(events[0].data).toMatchObject({ amount: '100000.00', previous_total: '119000.00', total: '19000.00', receipt: 'col_r' });
        expect(events[1].data).toMatchObject({ paid_out_of_band: true, paid_by: 'col_r' });
      });
    const settled = history(collect(), ({ ...applyPayment('100000', '119000.00'), settlesInvoice: true }) as CommandOf<'ApplyRegisteredPayment'>);
    expect(fieldsOf(settled)).toMatchObject({ status: 'paid', total: '19000.00', amount_applied: '100000.00', paid_by: 'col_r' });
    // Without the flag the same amount only lowers the total.
    expect(fieldsOf(history(collect(), applyPayment('100000', '119000.00')))).toMatchObject({ status: 'pending', total: '19000.00' });
  });
});
