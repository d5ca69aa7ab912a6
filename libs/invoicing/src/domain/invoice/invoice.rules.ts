import { DomainError, invalidParam } from '#shared/errors.js';
import { type Currency, Money, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import type { InvoiceFields, InvoiceStatus } from './invoice.state.js';

/** A positive amount with at most the currency's digits, or 400 naming `param`. */
export function checkAmount(value: string, cur: Currency, param: string): Money {
  if (!isDecimalString(value) || new Money(value).lte(0)) throw invalidParam(param, `${param} must be a positive decimal amount`);
  if (decimalPlaces(value) > cur.exponent) throw invalidParam(param, `${param} has more decimals than ${cur.code} allows (${cur.exponent})`);
  return new Money(value);
}

/**
 * The balance after paying `paid` more and crediting `credited` more (either may be negative: a credit
 * reversed). A credit note lowers what is due but is no payment: an invoice with nothing paid stays
 * `open` (as Stripe's does) until nothing is due (`paid`: settled by money and/or credit notes);
 * `partially_paid` means some money was paid and some is still due.
 */
export function balanceAfter(f: InvoiceFields, cur: Currency, paid: Money | string | number, credited: Money | string | number) {
  const total_paid = new Money(f.total_paid).plus(paid);
  const amount_credited = new Money(f.amount_credited).plus(credited);
  const due = Money.max(new Money(f.total).minus(total_paid).minus(amount_credited), 0);
  const status: InvoiceStatus = f.status === 'void' ? 'void' : due.isZero() ? 'paid' : total_paid.gt(0) ? 'partially_paid' : 'open';
  return { total_paid: formatAmount(total_paid, cur), amount_credited: formatAmount(amount_credited, cur), amount_due: formatAmount(due, cur), status };
}

export const refusedInState = (what: string, id: string, why: string, code = 'invalid_state') => new DomainError(code, `Cannot ${what} invoice ${id}: ${why}`, null, 409);
