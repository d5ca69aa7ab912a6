import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { DomainError } from '#shared/errors.js';
import { currency as currencyOf, formatAmount } from '#shared/money.js';
import { balanceAfter, checkAmount, refusedInState } from '../invoice.rules.js';

/**
 * A payment against the invoice (a paid collection, or part of a registered payment): at most the
 * amount due; the same payment id twice records nothing. Reaching 0 due emits `invoice.paid`.
 */
export function decideRecordInvoicePayment(command: InvoiceCommandOf<'RecordInvoicePayment'>, state: InvoiceState): InvoiceEvent[] {
  const f = state.fields!;
  const id = command.invoiceId;
  const cur = currencyOf(f.currency)!;
  if (f.payments.some((p) => p.id === command.paymentId)) return [];
  if (f.status === 'void') throw refusedInState('pay', id, 'it is void');
  const amount = checkAmount(command.amount, cur, 'amount');
  if (amount.gt(f.amount_due)) {
    throw new DomainError('amount_exceeds_balance', `amount ${formatAmount(amount, cur)} is more than the amount due on invoice ${id}: ${f.amount_due}`, 'amount', 400);
  }
  const now = command.now.toISOString();
  const after = balanceAfter(f, cur, amount, 0);
  const payment = { id: command.paymentId, amount: formatAmount(amount, cur), date: now, collection: command.collection, payment_method_type: command.paymentMethodType, receipt: command.receipt };
  const events: InvoiceEvent[] = [{ type: 'invoice.payment_recorded', data: { id, customer: f.customer, payment, ...after } }];
  if (after.status === 'paid') events.push({ type: 'invoice.paid', data: { id, customer: f.customer, ...after, paid_at: now } });
  return events;
}
