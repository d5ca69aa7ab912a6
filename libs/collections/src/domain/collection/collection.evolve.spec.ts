import fc from 'fast-check';
import { currency, formatAmount } from '#shared/money.js';
import type { CollectionCreated } from './collection.events.js';
import type { CollectionFields } from './collection.state.js';
import { applyCollectionEvent } from './collection.evolve.js';

/** What `collection.created` folded to before it was written as one literal and one spread. */
function asBefore(data: Record<string, unknown>): Record<string, unknown> {
  const { id, account_id, is_test, created_at, ...f } = data;
  const cur = currency(String(f.currency));
  const defaults = {
    partial_payment: null,
    balance_of: null,
    amount_applied: cur ? formatAmount('0', cur) : '0',
    paid_by: null,
    applied_to: null,
    amount_credited: cur ? formatAmount('0', cur) : '0',
    credit_notes: [],
    settled_by_credit_note: null,
  };
  return { ...defaults, ...f };
}

const OPTIONAL = ['partial_payment', 'balance_of', 'amount_applied', 'paid_by', 'applied_to', 'amount_credited', 'credit_notes', 'settled_by_credit_note'];

test('collection.created: the same fields, in the same key order, as defaults overlaid with the event (old events lack the later fields)', () => {
  fc.assert(
    fc.property(
      fc.subarray(OPTIONAL),
      fc.constantFrom('COP', 'USD', 'JPY', 'XXX'),
      fc.constantFrom(null, undefined, 'x', '5.00'),
      (present, code, value) => {
        const data: Record<string, unknown> = { id: 'col_1', account_id: 'acct_1', is_test: true, created_at: '2026-01-01T00:00:00.000Z', currency: code, total: '10', status: 'pending' };
        for (const k of present) data[k] = k === 'credit_notes' ? [] : value;
        data.customer = 'cus_1';
        const after = applyCollectionEvent(null as unknown as CollectionFields, { type: 'collection.created', data } as unknown as CollectionCreated);
        const before = asBefore(data);
        expect(Object.keys(after)).toEqual(Object.keys(before));
        expect(after).toEqual(before);
      },
    ),
  );
});
