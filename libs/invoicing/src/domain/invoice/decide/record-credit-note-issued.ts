import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { notFound } from '#shared/errors.js';

/** The provider issued the credit note; recorded once. */
export function decideRecordCreditNoteIssued(command: InvoiceCommandOf<'RecordCreditNoteIssued'>, state: InvoiceState): InvoiceEvent[] {
  const cn = state.creditNotes[command.creditNoteId];
  if (!cn) throw notFound('credit_note', command.creditNoteId);
  if (cn.issuance.status === 'issued') return [];
  return [{ type: 'credit_note.issued', data: { id: cn.id, invoice: command.invoiceId, number: command.number, fiscal: command.fiscal } }];
}
