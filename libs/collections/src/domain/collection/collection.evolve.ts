/** How each event changes a collection's state. */
import type { ChargeStatus, CollectionFields, CollectionState, TransactionState } from './collection.state.js';
import type { CollectionEvent } from './collection.events.js';
import { currency as currencyOf, formatAmount } from '#shared/money.js';

/** The fields after an event: shared by `evolve` and the collections projection. */
export function applyCollectionEvent(fields: CollectionFields, event: CollectionEvent): CollectionFields {
  switch (event.type) {
    case 'collection.created': {
      const d = event.data;
      const { id, account_id, is_test, created_at, partial_payment, balance_of, amount_applied, paid_by, applied_to, amount_credited, credit_notes, settled_by_credit_note, ...rest } = d;
      // Collections recorded before partial payments and registered payments existed have none of their fields.
      const zero = () => {
        const cur = currencyOf(d.currency);
        return cur ? formatAmount('0', cur) : '0';
      };
      // What `{ ...defaults, ...fields }` gives (the same keys in the same order), written as one
      // literal and one spread: two spreads of ~50 keys into one object cost V8 some 50× more.
      return {
        partial_payment: 'partial_payment' in d ? partial_payment : null,
        balance_of: 'balance_of' in d ? balance_of : null,
        amount_applied: 'amount_applied' in d ? amount_applied : zero(),
        paid_by: 'paid_by' in d ? paid_by : null,
        applied_to: 'applied_to' in d ? applied_to : null,
        amount_credited: 'amount_credited' in d ? amount_credited : zero(),
        credit_notes: 'credit_notes' in d ? credit_notes : [],
        settled_by_credit_note: 'settled_by_credit_note' in d ? settled_by_credit_note : null,
        ...rest,
      };
    }
    case 'collection.invoice_attached':
      return { ...fields, invoice: event.data.invoice, invoice_number: event.data.invoice_number, invoices: event.data.invoices };
    case 'collection.updated':
      return { ...fields, ...event.data.changes };
    case 'collection.partial_payment_defined':
      return { ...fields, total: event.data.total, partial_payment: event.data.partial_payment };
    case 'collection.total_updated':
      return { ...fields, total: event.data.total, subtotal: event.data.subtotal };
    case 'collection.payment_applied':
      return { ...fields, total: event.data.total, amount_applied: event.data.amount_applied };
    case 'collection.credited':
      return {
        ...fields,
        total: event.data.total,
        amount_credited: event.data.amount_credited,
        credit_notes: [...(fields.credit_notes ?? []), { credit_note: event.data.credit_note, amount: event.data.amount, voided: false }],
      };
    case 'collection.credit_reversed':
      return {
        ...fields,
        total: event.data.total,
        amount_credited: event.data.amount_credited,
        credit_notes: (fields.credit_notes ?? []).map((c) => (c.credit_note === event.data.credit_note ? { ...c, voided: true } : c)),
      };
    case 'transaction.created':
      return {
        ...fields,
        collecting: true,
        collection_attempts: fields.collection_attempts + 1,
        latest_transaction: event.data.transaction,
        payment_method: event.data.payment_method,
        payment_method_gateway: event.data.gateway,
        payment_method_type: event.data.payment_method_type,
        additional_data: null,
      };
    case 'charge.pending':
      return { ...fields, status: 'processing', collecting: false, additional_data: event.data.additional_data };
    case 'collection.payment_failed':
      return {
        ...fields,
        // An attempt that never reached a gateway has no transaction.created to count it.
        collection_attempts: event.data.transaction === null ? fields.collection_attempts + 1 : fields.collection_attempts,
        status: fields.status === 'processing' ? 'pending' : fields.status,
        collecting: false,
        additional_data: null,
        dunning_step: event.data.dunning_step ?? fields.dunning_step,
        next_collection_attempt_date: event.data.next_collection_attempt_date !== undefined ? event.data.next_collection_attempt_date : fields.next_collection_attempt_date,
      };
    case 'collection.past_due':
      return { ...fields, status: 'past_due', dunning_step: 0, next_collection_attempt_date: event.data.next_collection_attempt_date };
    case 'collection.reminder':
      return { ...fields, dunning_step: event.data.dunning_step, next_collection_attempt_date: event.data.next_collection_attempt_date };
    case 'collection.paid':
      return {
        ...fields,
        status: 'paid',
        collecting: false,
        paid_date: event.data.paid_date,
        paid_out_of_band: event.data.paid_out_of_band,
        out_of_band_proof: event.data.out_of_band_proof,
        paid_by: event.data.paid_by ?? fields.paid_by ?? null,
        settled_by_credit_note: event.data.credit_note ?? fields.settled_by_credit_note ?? null,
        payment_method: event.data.saved_payment_method ?? event.data.payment_method ?? fields.payment_method,
        payment_method_gateway: event.data.payment_method_gateway ?? fields.payment_method_gateway,
        payment_method_type: event.data.payment_method_type ?? fields.payment_method_type,
        additional_data: null,
        next_collection_attempt_date: null,
      };
    case 'collection.voided':
      return { ...fields, status: 'voided', voided_at_date: event.data.voided_at_date, next_collection_attempt_date: null };
    case 'collection.uncollectible':
      return { ...fields, status: 'uncollectible', next_collection_attempt_date: null };
    case 'collection.refunded':
      return { ...fields, status: event.data.status, amount_refunded: event.data.amount_refunded };
    default:
      return fields;
  }
}

function evolveTransactions(txs: TransactionState[], event: CollectionEvent): TransactionState[] {
  const update = (id: string, f: (t: TransactionState) => TransactionState) => txs.map((t) => (t.id === id ? f(t) : t));
  const setCharge = (t: TransactionState, chargeId: string, status: ChargeStatus, retryable = false) => ({
    ...t,
    charges: t.charges.map((c) => (c.id === chargeId ? { ...c, status, retryable } : c)),
  });
  switch (event.type) {
    case 'transaction.created':
      return [...txs, { id: event.data.transaction, status: 'in_progress', started_at: event.data.created_at, source: event.data.source, amount: event.data.amount, charges: [] }];
    case 'charge.created':
      return update(event.data.transaction, (t) => ({
        ...t,
        status: 'in_progress',
        charges: [...t.charges, { id: event.data.charge, try: event.data.try, status: 'in_progress', started_at: event.data.created_at, retryable: false }],
      }));
    case 'charge.paid':
      return update(event.data.transaction, (t) => {
        const paid = setCharge(t, event.data.charge, 'succeeded');
        const reference = event.data.gateway_reference;
        return { ...paid, status: 'succeeded', charges: paid.charges.map((c) => (c.id === event.data.charge ? { ...c, gateway_reference: reference } : c)) };
      });
    case 'charge.pending':
      return update(event.data.transaction, (t) => ({ ...setCharge(t, event.data.charge, 'pending'), status: 'pending' }));
    case 'charge.failed':
      // The transaction stays open until the collection records the failure (a retry may follow).
      return update(event.data.transaction, (t) => setCharge(t, event.data.charge, 'failed', event.data.retryable));
    case 'collection.payment_failed':
      return event.data.transaction === null ? txs : update(event.data.transaction, (t) => ({ ...t, status: 'failed' }));
    default:
      return txs;
  }
}

export const initialCollectionState: CollectionState = { exists: false, owner: null, fields: null, transactions: [] };

/** The state after an event. */
export function evolveCollection(state: CollectionState, event: CollectionEvent): CollectionState {
  if (event.type === 'collection.created') {
    return {
      exists: true,
      owner: { accountId: event.data.account_id, mode: event.data.is_test ? 'test' : 'live' },
      fields: applyCollectionEvent(null as unknown as CollectionFields, event),
      transactions: [],
    };
  }
  if (!state.fields) return state;
  return { ...state, fields: applyCollectionEvent(state.fields, event), transactions: evolveTransactions(state.transactions, event) };
}
