import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';

/** The provider answered with the invoice's number and fiscal reference; recorded once (a repeat records nothing). */
export function decideRecordInvoiceIssued(command: InvoiceCommandOf<'RecordInvoiceIssued'>, state: InvoiceState): InvoiceEvent[] {
  const f = state.fields!;
  if (f.issuance.status === 'issued' || f.issuance.status === 'external') return [];
  return [
    {
      type: 'invoice.issued',
      data: { id: command.invoiceId, customer: f.customer, number: command.number, fiscal: command.fiscal, amounts: command.amounts, issue_date: command.now.toISOString() },
    },
  ];
}
