import { type CreditNoteFields, type InvoiceFields, type InvoiceState, NO_INVOICE_SETTINGS } from './invoice.state.js';
import type { InvoiceEvent } from './invoice.events.js';
import { currency as currencyOf, formatAmount } from '#shared/money.js';

/** An invoice's fields after an event: shared by `evolve` and the invoices projection. */
export function applyInvoiceEvent(fields: InvoiceFields, event: InvoiceEvent): InvoiceFields {
  switch (event.type) {
    case 'invoice.created': {
      const { id, account_id, is_test, created_at, ...f } = event.data;
      return { ...f, invoice_settings: f.invoice_settings ?? NO_INVOICE_SETTINGS };
    }
    case 'invoice.issued':
      return {
        ...fields,
        ...event.data.amounts,
        number: event.data.number,
        fiscal: event.data.fiscal,
        issue_date: event.data.issue_date,
        issuance: { ...fields.issuance, status: 'issued', attempts: fields.issuance.attempts + 1, next_attempt_at: null },
      };
    case 'invoice.issuance_failed':
      return { ...fields, issuance: { status: 'failed', attempts: event.data.attempts, last_error: event.data.error, next_attempt_at: event.data.next_attempt_at } };
    case 'invoice.payment_recorded':
      return { ...fields, payments: [...fields.payments, event.data.payment], ...balance(event.data) };
    case 'invoice.paid':
      return { ...fields, ...balance(event.data), paid_at: event.data.paid_at };
    case 'invoice.credited':
      return { ...fields, credit_notes: fields.credit_notes.includes(event.data.credit_note) ? fields.credit_notes : [...fields.credit_notes, event.data.credit_note], ...balance(event.data) };
    case 'invoice.credit_reversed':
      return { ...fields, ...balance(event.data) };
    case 'invoice.voided':
      // A void invoice asks nothing: its amount due is 0 (what was paid or credited before stays as it was).
      return { ...fields, status: 'void', amount_due: formatAmount('0', currencyOf(fields.currency)!), voided_at: event.data.voided_at };
    default:
      return fields;
  }
}

const balance = (d: Pick<InvoiceFields, 'total_paid' | 'amount_credited' | 'amount_due' | 'status'>) => ({
  total_paid: d.total_paid,
  amount_credited: d.amount_credited,
  amount_due: d.amount_due,
  status: d.status,
});

/** A credit note's fields after an event (its own events only): shared by `evolve` and the credit notes projection. */
export function applyCreditNoteEvent(fields: CreditNoteFields, event: InvoiceEvent): CreditNoteFields {
  switch (event.type) {
    case 'credit_note.created': {
      const { id, account_id, is_test, created_at, ...f } = event.data;
      return f;
    }
    case 'credit_note.issued':
      return { ...fields, number: event.data.number, fiscal: event.data.fiscal, issuance: { ...fields.issuance, status: 'issued', attempts: fields.issuance.attempts + 1, next_attempt_at: null } };
    case 'credit_note.issuance_failed':
      return { ...fields, issuance: { status: 'failed', attempts: event.data.attempts, last_error: event.data.error, next_attempt_at: event.data.next_attempt_at } };
    case 'credit_note.voided':
      return { ...fields, status: 'void', voided_at: event.data.voided_at };
    default:
      return fields;
  }
}

export const initialInvoiceState: InvoiceState = { exists: false, owner: null, fields: null, creditNotes: {} };

export function evolveInvoice(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  if (event.type === 'invoice.created') {
    return {
      exists: true,
      owner: { accountId: event.data.account_id, mode: event.data.is_test ? 'test' : 'live' },
      fields: applyInvoiceEvent(null as unknown as InvoiceFields, event),
      creditNotes: {},
    };
  }
  if (!state.fields) return state;
  if (event.type.startsWith('credit_note.')) {
    const id = (event.data as { id: string }).id;
    const before = state.creditNotes[id] ?? (null as unknown as CreditNoteFields & { id: string });
    return { ...state, creditNotes: { ...state.creditNotes, [id]: { ...applyCreditNoteEvent(before, event), id } } };
  }
  return { ...state, fields: applyInvoiceEvent(state.fields, event) };
}
