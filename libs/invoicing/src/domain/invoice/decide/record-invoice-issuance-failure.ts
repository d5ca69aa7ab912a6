import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { nextAttemptAt } from '../invoice.state.js';

/** The provider failed: the attempt is counted and the next one scheduled (1 min, 5 min, 15 min, then hourly). */
export function decideRecordInvoiceIssuanceFailure(command: InvoiceCommandOf<'RecordInvoiceIssuanceFailure'>, state: InvoiceState): InvoiceEvent[] {
  const f = state.fields!;
  if (f.issuance.status === 'issued' || f.issuance.status === 'external') return [];
  const attempts = f.issuance.attempts + 1;
  return [
    {
      type: 'invoice.issuance_failed',
      data: { id: command.invoiceId, customer: f.customer, attempts, error: command.error, next_attempt_at: nextAttemptAt(command.now, attempts), failed_at: command.now.toISOString() },
    },
  ];
}
