import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type CollectionEvent, type InvoiceFigures, collectionDecider } from '../../collection.decider.js';
import { iso, ref, collect, start, payOutOfBand, voidIt, markUncollectible, history, fieldsOf, types, itemless, invoice, updateTotal } from '../../testing/collection-fixtures.js';

describe('collection: update total (the spec five conditions)', () => {
  const balance = () => history(itemless());

  test('the total of a collection without items changes within its invoice: collection.total_updated', () => {
    given(collectionDecider, balance())
      .when(updateTotal('15000'))
      .then([{ type: 'collection.total_updated', data: { ...ref, previous_total: '19000.00', total: '15000.00', subtotal: '15000.00', invoice: 'col_0', updated_at: iso(5) } }]);
    expect(fieldsOf(history(itemless(), updateTotal('15000')))).toMatchObject({ total: '15000.00', subtotal: '15000.00', items: null });
    // At the limits: total = balance and total + others = invoice total.
    given(collectionDecider, balance()).when(updateTotal('19000.00')).then([]);
    given(collectionDecider, balance()).when(updateTotal('20000', invoice({ other_totals: '99000.00' }))).then((events) => expect(events[0].data).toMatchObject({ total: '20000.00' }));
    // uncollectible qualifies (condition 1).
    given(collectionDecider, history(itemless(), markUncollectible())).when(updateTotal('1', invoice(), 9)).then((events) => expect(types(events)).toEqual(['collection.total_updated']));
  });

  const refused = (past: CollectionEvent[], total: string, inv: InvoiceFigures, message: string, param: string | null = null) => {
    const e = given(collectionDecider, past).when(updateTotal(total, inv, 20)).thenRejects('collection_total_not_updatable', param);
    expect(e.status).toBe(400);
    expect(e.message).toBe(message);
  };

  test('1. status pending, past_due or uncollectible', () => {
    refused(history(itemless(), payOutOfBand(null)), '1', invoice(), 'Cannot update the total of collection col_1: its status is paid; it must be pending, past_due or uncollectible');
    refused(history(itemless(), voidIt()), '1', invoice(), 'Cannot update the total of collection col_1: its status is voided; it must be pending, past_due or uncollectible');
  });

  test('2. no items', () => {
    refused(history(collect()), '1', invoice(), 'Cannot update the total of collection col_1: it has items; only a collection without items (items null) can have its total set');
  });

  test('3. type invoice', () => {
    const created = history(itemless())[0] as CollectionEvent & { data: Record<string, unknown> };
    const other = [{ ...created, data: { ...created.data, type: 'receipt' } } as unknown as CollectionEvent];
    refused(other, '1', invoice(), 'Cannot update the total of collection col_1: its type is receipt; it must be invoice');
  });

  test('4. the new total is at most the invoice balance (total − total paid)', () => {
    refused(
      balance(),
      '19000.01',
      invoice({ total_paid: '100000.00' }),
      'Cannot update the total of collection col_1: the new total 19000.01 is more than the balance of invoice col_0: 19000.00 (invoice total 119000.00 less 100000.00 paid)',
      'total',
    );
  });

  test('5. the new total plus the other collections of the invoice is at most the invoice total', () => {
    refused(
      balance(),
      '19000.01',
      invoice(),
      'Cannot update the total of collection col_1: the new total 19000.01 plus the totals of the other collections of invoice col_0 (100000.00) is 119000.01, more than the invoice total 119000.00',
      'total',
    );
  });

  test('a bad total is 400 parameter_invalid; an attempt in flight is 409', () => {
    for (const bad of ['0', '-1', 'x']) given(collectionDecider, balance()).when(updateTotal(bad)).thenRejects('parameter_invalid', 'total');
    given(collectionDecider, balance()).when(updateTotal('1.001')).thenRejects('parameter_invalid', 'total');
    given(collectionDecider, history(itemless(), start())).when(updateTotal('1')).thenRejects('payment_in_progress');
  });

  test('with a fiscal invoice: its credit notes are off the balance (condition 4) and off the total the collections may ask for (condition 5)', () => {
    const balance = () => history(itemless());
    // Invoice 19000, 4000 credited, nothing paid: the balance is 15000.
    const credited = invoice({ total: '19000.00', total_paid: '0.00', other_totals: '0.00', credited: '4000.00' });
    const over = given(collectionDecider, balance()).when(updateTotal('15000.01', credited)).thenRejects('collection_total_not_updatable', 'total');
    expect(over.message).toContain('is more than the balance of invoice col_0: 15000.00 (invoice total 19000.00 less 0.00 paid and 4000.00 credited)');
    given(collectionDecider, balance()).when(updateTotal('15000', credited)).then((events) => expect(events[0].data).toMatchObject({ total: '15000.00' }));
    const others = invoice({ total: '19000.00', total_paid: '0.00', other_totals: '5000.00', credited: '4000.00' });
    const five = given(collectionDecider, balance()).when(updateTotal('10000.01', others)).thenRejects('collection_total_not_updatable', 'total');
    expect(five.message).toContain('more than the invoice total 19000.00 less 4000.00 credited');
  });
});
