import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { notFound } from '#shared/errors.js';
import { nextAttemptAt } from '../invoice.state.js';

/** The provider failed to issue the credit note: counted, retried on the invoice's deadline. */
export function decideRecordCreditNoteIssuanceFailure(command: InvoiceCommandOf<'RecordCreditNoteIssuanceFailure'>, state: InvoiceState): InvoiceEvent[] {
  const cn = state.creditNotes[command.creditNoteId];
  if (!cn) throw notFound('credit_note', command.creditNoteId);
  if (cn.issuance.status === 'issued') return [];
  const attempts = cn.issuance.attempts + 1;
  return [
    {
      type: 'credit_note.issuance_failed',
      data: { id: cn.id, invoice: command.invoiceId, attempts, error: command.error, next_attempt_at: nextAttemptAt(command.now, attempts), failed_at: command.now.toISOString() },
    },
  ];
}
