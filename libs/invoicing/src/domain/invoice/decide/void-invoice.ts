import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { refusedInState } from '../invoice.rules.js';
import { Money } from '#shared/money.js';

/** Void: only while nothing is paid (a paid or partly paid invoice is corrected with a credit note). Voiding a void invoice records nothing. */
export function decideVoidInvoice(command: InvoiceCommandOf<'VoidInvoice'>, state: InvoiceState): InvoiceEvent[] {
  const f = state.fields!;
  if (f.status === 'void') return [];
  if (new Money(f.total_paid).gt(0)) throw refusedInState('void', command.invoiceId, `${f.total_paid} ${f.currency} of it is paid; issue a credit note instead`);
  return [{ type: 'invoice.voided', data: { id: command.invoiceId, customer: f.customer, voided_at: command.now.toISOString() } }];
}
