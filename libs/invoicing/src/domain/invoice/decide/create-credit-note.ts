import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { balanceAfter, checkAmount, refusedInState } from '../invoice.rules.js';

/**
 * A credit note against the invoice: a reason, an amount of at most what is still credited-able —
 * the amount due, or for a refund what was paid and not yet credited — so the balance never goes
 * below zero. Its fiscal issuance follows (`credit_note.issued` or a retried failure).
 */
export function decideCreateCreditNote(command: InvoiceCommandOf<'CreateCreditNote'>, state: InvoiceState): InvoiceEvent[] {
  const f = state.fields!;
  const id = command.invoiceId;
  const cur = currencyOf(f.currency)!;
  if (state.creditNotes[command.creditNoteId]) return [];
  if (f.status === 'void') throw refusedInState('credit', id, 'it is void');
  if (typeof command.reason !== 'string' || command.reason.trim().length === 0 || command.reason.length > 500) {
    throw invalidParam('reason', 'reason must be 1 to 500 characters long');
  }
  const amount = checkAmount(command.amount, cur, 'amount');
  // A refund credits money already paid; otherwise the credit lowers what is still due.
  const creditable = command.refund
    ? Money.max(new Money(f.total).minus(f.amount_credited), 0)
    : new Money(f.amount_due);
  if (amount.gt(creditable)) {
    throw new DomainError(
      'credit_note_exceeds_balance',
      `amount ${formatAmount(amount, cur)} is more than ${command.refund ? 'the creditable total' : 'the amount due'} of invoice ${id}: ${formatAmount(creditable, cur)} (a credit note never takes the balance below zero)`,
      'amount',
      400,
    );
  }
  const now = command.now.toISOString();
  // A refund gives money back: what was paid is lowered by the refund, and the credit covers it.
  const after = command.refund ? balanceAfter(f, cur, amount.neg(), amount) : balanceAfter(f, cur, 0, amount);
  const events: InvoiceEvent[] = [
    {
      type: 'credit_note.created',
      data: {
        id: command.creditNoteId,
        account_id: command.owner.accountId,
        is_test: command.owner.mode === 'test',
        created_at: now,
        invoice: id,
        customer: f.customer,
        number: null,
        amount: formatAmount(amount, cur),
        currency: f.currency,
        reason: command.reason.trim(),
        status: 'issued',
        issuance: { status: 'pending', attempts: 0, last_error: null, next_attempt_at: null },
        fiscal: null,
        voided_at: null,
        refund: command.refund,
      },
    },
    { type: 'invoice.credited', data: { id, customer: f.customer, credit_note: command.creditNoteId, amount: formatAmount(amount, cur), reason: command.reason.trim(), ...after } },
  ];
  if (after.status === 'paid' && f.status !== 'paid') events.push({ type: 'invoice.paid', data: { id, customer: f.customer, ...after, paid_at: now } });
  return events;
}
