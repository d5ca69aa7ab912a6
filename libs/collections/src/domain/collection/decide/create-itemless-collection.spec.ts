import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from '../../collection.decider.js';
import { now, at, iso, owner, id, ref, collect, payOutOfBand, history, fieldsOf, types, itemless } from '../../testing/collection-fixtures.js';

describe('collection: without items (balance, receipt)', () => {
  test('a balance collection: collect, no items, subtotal = total, due on the given date, created and sent', () => {
    const events = given(collectionDecider).when(itemless()).events();
    expect(types(events)).toEqual(['collection.created', 'collection.sent']);
    expect(events[0].data).toMatchObject({
      items: null,
      discounts: [],
      subtotal: '19000.00',
      total: '19000.00',
      status: 'pending',
      collection_method: 'collect',
      due_date: iso(10 * 24 * 60),
      description: 'Balance of col_0',
      balance_of: 'col_0',
      collection_rule_id: 'rule_1',
      billing_reason: 'partial_payment_balance',
      partial_payment: null,
      amount_applied: '0.00',
      applied_to: null,
      meta_data: { order: '42' },
    });
    expect(events[1].data).toEqual({ ...ref, sent_at: now.toISOString(), checkout_url: 'https://checkout.test/col/col_1' });
    // It goes past due and is paid like any collect collection.
    const f = fieldsOf(history(itemless(), { type: 'MarkPastDue', owner, collectionId: id, now: at(11 * 24 * 60) }, payOutOfBand(null, 11 * 24 * 60 + 1)));
    expect(f).toMatchObject({ status: 'paid', items: null, total: '19000.00' });
    given(collectionDecider).when(itemless({ due_date: null })).thenRejects('parameter_missing', 'days_until_due');
  });

  test('made already past its due date (an overdue invoice uploaded): created, past due at once with dunning counted from now, sent; no step dated before it existed', () => {
    const DAY = 24 * 60;
    const overdue = itemless({ kind: 'invoice', balance_of: null, billing_reason: 'invoice_upload', due_date: iso(-60 * DAY) });
    const events = given(collectionDecider).when(overdue).events();
    expect(types(events)).toEqual(['collection.created', 'collection.past_due', 'collection.sent']);
    expect(events[1].data).toMatchObject({ ...ref, due_date: iso(-60 * DAY), next_collection_attempt_date: iso(DAY) });
    // Its reminders follow the policy's spacing from the upload (1, 3, 5 days), then uncollectible at 7.
    const dunning = (minutes: number) => ({ type: 'AdvanceDunning' as const, owner, collectionId: id, now: at(minutes) });
    expect(types(history(overdue, dunning(0)))).toEqual(['collection.created', 'collection.past_due', 'collection.sent']);
    let f = fieldsOf(history(overdue, dunning(DAY)));
    expect(f).toMatchObject({ status: 'past_due', dunning_step: 1, next_collection_attempt_date: iso(3 * DAY) });
    f = fieldsOf(history(overdue, dunning(DAY), dunning(3 * DAY), dunning(5 * DAY)));
    expect(f).toMatchObject({ status: 'past_due', dunning_step: 3, next_collection_attempt_date: iso(7 * DAY) });
    expect(fieldsOf(history(overdue, dunning(DAY), dunning(3 * DAY), dunning(5 * DAY), dunning(7 * DAY))).status).toBe('uncollectible');
    // Due in a minute: pending and sent, as before.
    expect(types(given(collectionDecider).when(itemless({ due_date: iso(1) })).events())).toEqual(['collection.created', 'collection.sent']);
  });

  test('a receipt: created and paid out of band at once, with what the payment was applied to', () => {
    const events = given(collectionDecider)
      .when(itemless({ kind: 'receipt', subscription: null, total: '30000', due_date: null, balance_of: null, collection_rule_id: null, applied_to: [{ collection: 'col_a', amount: '30000' }], billing_reason: 'invoices_payment' }))
      .events();
    expect(types(events)).toEqual(['collection.created', 'collection.paid']);
    expect(events[0].data).toMatchObject({ items: null, total: '30000.00', subtotal: '30000.00', due_date: null, applied_to: [{ collection: 'col_a', amount: '30000.00' }] });
    expect(events[1].data).toMatchObject({ paid_date: now.toISOString(), paid_out_of_band: true });
    const e = given(collectionDecider).when(itemless({ kind: 'receipt', total: '100', applied_to: [{ collection: 'col_a', amount: '100.01' }] })).thenRejects('parameter_invalid', 'amount');
    expect(e.message).toBe('The amounts applied (100.01) exceed the payment (100.00)');
    given(collectionDecider).when(itemless({ total: '0' })).thenRejects('parameter_invalid', 'amount');
  });

  test("a receipt says what it did: amount_applied is the sum it applied, invoices the fiscal invoices it paid into (once each); unapplied money stays in its total only", () => {
    const [created] = given(collectionDecider)
      .when(
        itemless({
          kind: 'receipt',
          subscription: null,
          total: '200000',
          due_date: null,
          balance_of: null,
          collection_rule_id: null,
          applied_to: [
            { collection: 'col_a', amount: '120000' },
            { collection: 'col_b', amount: '30000' },
            { collection: 'col_c', amount: '20000' },
          ],
          invoices: ['inv_a', 'inv_b', 'inv_b'],
          billing_reason: 'invoices_payment',
        }),
      )
      .events();
    expect(created.data).toMatchObject({ total: '200000.00', amount_applied: '170000.00', invoices: ['inv_a', 'inv_b'] });
    // Without fiscal invoices (invoicing off, nothing uploaded): it applied money, to no invoice.
    const [plain] = given(collectionDecider)
      .when(itemless({ kind: 'receipt', subscription: null, total: '100', due_date: null, balance_of: null, collection_rule_id: null, applied_to: [{ collection: 'col_a', amount: '100' }], billing_reason: 'invoices_payment' }))
      .events();
    expect(plain.data).toMatchObject({ amount_applied: '100.00', invoices: [] });
  });
});
