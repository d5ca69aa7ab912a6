import { describe, expect, test } from '@jest/globals';
import { type OpenCollection, paymentOrder, planRegisteredPayment } from '../collection.decider.js';
import { now, id } from '../testing/collection-fixtures.js';

describe('register_invoices_payment: order and plan', () => {
  const day = 86_400_000;
  const today = new Date('2026-03-10T12:00:00.000Z');
  const rel = (days: number) => new Date(today.getTime() + days * day).toISOString();
  const cop = { code: 'COP', exponent: 2 };
  const open = (cid: string, total: string, due: number | null, over: Partial<OpenCollection> = {}): OpenCollection => ({
    id: cid,
    status: 'pending',
    total,
    due_date: due === null ? null : rel(due),
    created_at: rel(-30),
    collecting: false,
    ...over,
  });
  const collections = [
    open('col_upcoming_far', '40000.00', 13),
    open('col_no_due_new', '7000.00', null, { created_at: rel(-1) }),
    open('col_overdue_recent', '5000.00', -1),
    open('col_upcoming_near', '30000.00', 2),
    open('col_no_due_old', '8000.00', null, { created_at: rel(-20) }),
    open('col_past_due_old', '10000.00', -9, { status: 'past_due' }),
    open('col_uncollectible', '20000.00', -5, { status: 'uncollectible' }),
  ];

  test('overdue first, oldest due date first; then upcoming, nearest first; no due date last, oldest first', () => {
    expect(paymentOrder(collections, today).map((c) => c.id)).toEqual([
      'col_past_due_old',
      'col_uncollectible',
      'col_overdue_recent',
      'col_upcoming_near',
      'col_upcoming_far',
      'col_no_due_old',
      'col_no_due_new',
    ]);
    // A due date exactly now is overdue (a calendar due date is its day's last millisecond); past_due is overdue whatever its date says.
    expect(paymentOrder([open('b', '1', 1), open('a', '1', 0), open('c', '1', 5, { status: 'past_due' })], today).map((c) => c.id)).toEqual(['a', 'c', 'b']);
    // A partial payment's chain shares its invoice's due date: the first collection before its balance, whatever the ids and creation times.
    expect(paymentOrder([open('col_a_balance', '1', 3, { depth: 1 }), open('col_z_first', '1', 3, { depth: 0, created_at: rel(-1) })], today).map((c) => c.id)).toEqual(['col_z_first', 'col_a_balance']);
  });

  test('the amount covers collections in that order; the last one partly', () => {
    expect(planRegisteredPayment('cus_1', collections, '70000', cop, today)).toEqual([
      { collection: 'col_past_due_old', amount: '10000.00', expected_total: '10000.00', pays: true, settles_invoice: false },
      { collection: 'col_uncollectible', amount: '20000.00', expected_total: '20000.00', pays: true, settles_invoice: false },
      { collection: 'col_overdue_recent', amount: '5000.00', expected_total: '5000.00', pays: true, settles_invoice: false },
      { collection: 'col_upcoming_near', amount: '30000.00', expected_total: '30000.00', pays: true, settles_invoice: false },
      { collection: 'col_upcoming_far', amount: '5000.00', expected_total: '40000.00', pays: false, settles_invoice: false },
    ]);
    expect(planRegisteredPayment('cus_1', collections, '120000.00', cop, today)).toHaveLength(7);
    expect(planRegisteredPayment('cus_1', collections, '0.01', cop, today)).toEqual([{ collection: 'col_past_due_old', amount: '0.01', expected_total: '10000.00', pays: false, settles_invoice: false }]);
  });

  test('refused before anything is applied: bad amount, nothing open, more than the open balance, an attempt in flight', () => {
    const reject = (fn: () => unknown, code: string) => {
      try {
        fn();
      } catch (e) {
        expect((e as { code: string }).code).toBe(code);
        return e as Error & { status: number; param: string | null };
      }
      throw new Error('not refused');
    };
    for (const bad of ['0', '-1', '1.001']) reject(() => planRegisteredPayment('cus_1', collections, bad, cop, today), 'parameter_invalid');
    const none = reject(() => planRegisteredPayment('cus_1', [], '1', cop, today), 'no_open_collections');
    expect(none.message).toBe('Customer cus_1 has no open collections (pending, past_due or uncollectible) to apply a payment to');
    const over = reject(() => planRegisteredPayment('cus_1', collections, '120000.01', cop, today), 'amount_exceeds_balance');
    expect(over).toMatchObject({ status: 400, param: 'amount', message: 'amount 120000.01 is more than the open balance of customer cus_1: 120000.00 COP over 7 collections' });
    const busy = reject(() => planRegisteredPayment('cus_1', [...collections, open('col_busy', '1.00', 1, { collecting: true })], '1', cop, today), 'payment_in_progress');
    expect(busy).toMatchObject({ status: 409, message: 'Cannot register the payment: collection col_busy has a payment attempt in progress' });
  });

  test('the rest of an interrupted payment goes as far as what is open and not being collected', () => {
    const rest = planRegisteredPayment('cus_1', [open('col_busy', '5.00', -3, { collecting: true }), open('col_a', '3.00', 1)], '10', cop, today, false);
    expect(rest).toEqual([{ collection: 'col_a', amount: '3.00', expected_total: '3.00', pays: true, settles_invoice: false }]);
  });

  test('a collection with a fiscal invoice is weighed at its amount due: a credit note took part of the total off', () => {
    // col_inv: total 10000, its invoice owes 6000 (4000 credited); col_b: 5000, no fiscal invoice.
    const withInvoice = [open('col_inv', '10000.00', -3, { balance: '6000.00', invoice: 'inv_1' }), open('col_b', '5000.00', 4)];
    const over = (() => {
      try {
        planRegisteredPayment('cus_1', withInvoice, '11000.01', cop, today);
      } catch (e) {
        return e as Error & { code: string };
      }
      return null;
    })();
    expect(over?.message).toContain('open balance of customer cus_1: 11000.00 COP');
    expect(planRegisteredPayment('cus_1', withInvoice, '7000', cop, today)).toEqual([
      { collection: 'col_inv', amount: '6000.00', expected_total: '10000.00', pays: false, settles_invoice: true },
      { collection: 'col_b', amount: '1000.00', expected_total: '5000.00', pays: false, settles_invoice: false },
    ]);
    expect(planRegisteredPayment('cus_1', withInvoice, '2000', cop, today)).toEqual([
      { collection: 'col_inv', amount: '2000.00', expected_total: '10000.00', pays: false, settles_invoice: false },
    ]);
    // An invoice with nothing due (credited whole) takes nothing.
    expect(planRegisteredPayment('cus_1', [open('col_z', '10.00', -1, { balance: '0.00', invoice: 'inv_z' }), open('col_c', '3.00', 1)], '3', cop, today)).toEqual([
      { collection: 'col_c', amount: '3.00', expected_total: '3.00', pays: true, settles_invoice: false },
    ]);
  });
});
