import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { DomainError, notFound } from '#shared/errors.js';
import { currency as currencyOf } from '#shared/money.js';
import { balanceAfter } from '../invoice.rules.js';

/**
 * Voiding a credit note gives the invoice its balance back. Refused for a refund's credit note (the
 * money went back to the customer) and on a void invoice; a void credit note again records nothing.
 */
export function decideVoidCreditNote(command: InvoiceCommandOf<'VoidCreditNote'>, state: InvoiceState): InvoiceEvent[] {
  const f = state.fields!;
  const cn = state.creditNotes[command.creditNoteId];
  if (!cn) throw notFound('credit_note', command.creditNoteId);
  if (cn.status === 'void') return [];
  const refuse = (why: string) => new DomainError('invalid_state', `Cannot void credit note ${cn.id}: ${why}`, null, 409);
  if (cn.refund) throw refuse(`it records refund ${cn.refund}`);
  if (f.status === 'void') throw refuse(`invoice ${f.number ?? command.invoiceId} is void`);
  const after = balanceAfter(f, currencyOf(f.currency)!, 0, '-' + cn.amount);
  return [
    { type: 'credit_note.voided', data: { id: cn.id, invoice: command.invoiceId, voided_at: command.now.toISOString() } },
    { type: 'invoice.credit_reversed', data: { id: command.invoiceId, customer: f.customer, credit_note: cn.id, amount: cn.amount, ...after } },
  ];
}
