import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import type { CommandOf } from '../collection.commands.js';
import { now, at, iso, owner, id, ref, line, create, collect, pse, start, outcome, payOutOfBand, voidIt, markUncollectible, updateItems, updateDiscounts, awaiting, history, fieldsOf, types, partial, itemless, applyPayment } from '../../testing/collection-fixtures.js';

describe('collection: partial payment', () => {
  test('the total of a collect collection becomes the amount; subtotal and items are kept and the partial payment recorded', () => {
    given(collectionDecider, history(collect()))
      .when(partial('100000'))
      .then([
        {
          type: 'collection.partial_payment_defined',
          data: {
            ...ref,
            partial_payment: { original_total: '119000.00', amount: '100000.00', balance: '19000.00', balance_collection: null },
            total: '100000.00',
            defined_at: iso(5),
            balance_due_date: null,
            balance_collection_rule_id: null,
          },
        },
      ]);
    const f = fieldsOf(history(collect(), partial('100000')));
    expect(f).toMatchObject({ status: 'pending', total: '100000.00', subtotal: '119000.00', partial_payment: { original_total: '119000.00', balance: '19000.00' } });
    expect(f.items).toEqual(fieldsOf(history(collect())).items);
    // The next attempt charges the partial amount.
    given(collectionDecider, history(collect(), partial('100000'))).when(start()).then((events) => expect(events[0].data).toMatchObject({ amount: '100000.00' }));
  });

  test('with a balance collection the event names it, its due date (the end of the Bogotá day days_until_due days after today) and its rule; a past_due collection qualifies', () => {
    given(collectionDecider, history(collect()))
      .when(partial('100000.5', { collectionId: 'col_2', days_until_due: 10, collection_rule_id: 'rule_1' }))
      .then((events) =>
        expect(events[0].data).toMatchObject({
          partial_payment: { original_total: '119000.00', amount: '100000.50', balance: '18999.50', balance_collection: 'col_2' },
          total: '100000.50',
          // at(5): Jan 31 in Bogotá; + 10 days = Feb 10, due until its end.
          balance_due_date: '2026-02-11T04:59:59.999Z',
          balance_collection_rule_id: 'rule_1',
        }),
      );
    const pastDue = history(collect(1), { type: 'MarkPastDue', owner, collectionId: id, now: at(2 * 24 * 60) });
    expect(fieldsOf(pastDue).status).toBe('past_due');
    given(collectionDecider, pastDue).when(partial('1', null, 3 * 24 * 60)).then((events) => expect(types(events)).toEqual(['collection.partial_payment_defined']));
  });

  test('only type invoice with collection_method collect (400, the spec rejection row)', () => {
    const e = given(collectionDecider, history(create())).when(partial('100000')).thenRejects('partial_payment_not_allowed', null);
    expect(e.status).toBe(400);
    expect(e.message).toBe('partial_payment is only valid for a collection with type invoice and collection_method collect; collection col_1 has type invoice and collection_method charge');
  });

  test('only pending or past_due with no attempt in flight (409 naming the state)', () => {
    const paid = history(collect(), payOutOfBand(null));
    const e = given(collectionDecider, paid).when(partial('1', null, 9)).thenRejects('invalid_state');
    expect(e.status).toBe(409);
    expect(e.message).toBe('Cannot define a partial payment on collection col_1: its status is paid');
    expect(given(collectionDecider, history(collect(), voidIt())).when(partial('1', null, 9)).thenRejects('invalid_state').message).toBe(
      'Cannot define a partial payment on collection col_1: its status is voided',
    );
    expect(given(collectionDecider, history(collect(), markUncollectible())).when(partial('1', null, 9)).thenRejects('invalid_state').message).toContain('its status is uncollectible');
    expect(given(collectionDecider, history(collect(), start('tx_1', 'ch_1', pse), outcome('ch_1', awaiting))).when(partial('1')).thenRejects('invalid_state').message).toContain(
      'its status is processing',
    );
    const inFlight = given(collectionDecider, history(collect(), start())).when(partial('1')).thenRejects('payment_in_progress');
    expect(inFlight.message).toBe('Cannot define a partial payment on collection col_1: its status is collecting');
  });

  test('the amount: more than 0, less than the total, the currency digits', () => {
    const past = history(collect());
    expect(given(collectionDecider, past).when(partial('119000')).thenRejects('parameter_invalid', 'amount').message).toBe('amount must be less than the total of collection col_1 (119000.00 COP)');
    given(collectionDecider, past).when(partial('119000.01')).thenRejects('parameter_invalid', 'amount');
    for (const bad of ['0', '0.00', '-1', 'abc']) given(collectionDecider, past).when(partial(bad)).thenRejects('parameter_invalid', 'amount');
    expect(given(collectionDecider, past).when(partial('1.001')).thenRejects('parameter_invalid', 'amount').message).toBe('amount has more decimals than COP allows (2)');
  });

  test('a balance collection needs days_until_due', () => {
    const e = given(collectionDecider, history(collect())).when(partial('1', { collectionId: 'col_2', days_until_due: null, collection_rule_id: null })).thenRejects('parameter_missing', 'days_until_due');
    expect(e.message).toBe('days_until_due is required with create_collection_with_balance');
  });

  test('once per collection, and not after a registered payment was applied to it', () => {
    const e = given(collectionDecider, history(collect(), partial('100000'))).when(partial('50000', null, 6)).thenRejects('invalid_state');
    expect(e.message).toBe('Cannot define a partial payment on collection col_1: a partial payment of 100000.00 is already defined on it');
    const applied = history(collect(), applyPayment('1000', '119000.00'));
    expect(given(collectionDecider, applied).when(partial('50000', null, 6)).thenRejects('invalid_state').message).toBe(
      'Cannot define a partial payment on collection col_1: a registered payment of 1000.00 was already applied to it',
    );
  });

  test('a total set directly is not recomputed from items or discounts afterwards (409)', () => {
    const past = history(collect(), partial('100000'));
    expect(given(collectionDecider, past).when(updateItems([line()])).thenRejects('invalid_state').message).toBe(
      'Cannot modify the items of collection col_1: its total was set directly (a partial payment is defined on it), not from items and discounts',
    );
    given(collectionDecider, past).when(updateDiscounts([])).thenRejects('invalid_state');
    expect(given(collectionDecider, history(itemless())).when(updateDiscounts([])).thenRejects('invalid_state').message).toContain('(it has no items)');
    expect(given(collectionDecider, history(collect(), applyPayment('1', '119000.00'))).when(updateItems([line()])).thenRejects('invalid_state').message).toContain(
      '(a registered payment was applied to it)',
    );
  });

  test('with a fiscal invoice, the amount is weighed against its real amount due (credit notes taken off)', () => {
    const withInvoice = (status: string, amount_due: string, amount = '50000') => ({ ...(partial(amount) as CommandOf<'DefinePartialPayment'>), invoice: { id: 'inv_1', status, amount_due } });
    // 119000 total, 100000 due on the invoice: 100000 is refused (not less than what is owed), 50000 leaves a balance of 50000 (not 69000).
    const refused = given(collectionDecider, history(collect())).when(withInvoice('partially_paid', '100000.00', '100000')).thenRejects('parameter_invalid', 'amount');
    expect(refused.message).toBe('amount must be less than the amount due on invoice inv_1 (100000.00 COP)');
    given(collectionDecider, history(collect()))
      .when(withInvoice('partially_paid', '100000.00'))
      .then((events) => expect(events[0].data).toMatchObject({ total: '50000.00', partial_payment: { original_total: '119000.00', amount: '50000.00', balance: '50000.00' } }));
    expect(given(collectionDecider, history(collect())).when(withInvoice('paid', '0.00')).thenRejects('invalid_state').message).toBe(
      'Cannot define a partial payment on collection col_1: its invoice inv_1 is paid',
    );
  });
});
