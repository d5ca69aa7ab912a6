import type { CollectionStatus } from './collection.state.js';
import { type Currency, Money, formatAmount } from '#shared/money.js';
import { DomainError } from '#shared/errors.js';
import { checkAmount } from './collection.rules.js';
import { isPastDue } from '#shared/dates.js';

/** An open collection of a customer as `register_invoices_payment` weighs it. */
export interface OpenCollection {
  id: string;
  status: CollectionStatus;
  total: string;
  due_date: string | null;
  created_at: string;
  /** A payment attempt is in flight on it. */
  collecting: boolean;
  /**
   * What is owed on it, when less than its total: its fiscal invoice's amount due (credit notes took
   * the rest off). Absent: the total (no fiscal invoice; the collection stands in for its invoice).
   */
  balance?: string;
  /** Its fiscal invoice, when it has one. */
  invoice?: string | null;
  /** Its place in a partial payment's chain (0: the first collection, 1: its balance, …): the chain is paid in order. */
  depth?: number;
}

/** One application of a registered payment: `amount` off collection `collection`, whose total is expected to be `expected_total`. */
export interface RegisteredPaymentStep {
  collection: string;
  amount: string;
  expected_total: string;
  /** The amount covers the collection: it is paid (out of band); otherwise its total is lowered. */
  pays: boolean;
  /** The amount covers its fiscal invoice's amount due (less than the collection's total): the collection is paid too. */
  settles_invoice: boolean;
}

/** What is owed on an open collection: its fiscal invoice's amount due when that is less, else its total. */
export const owedOn = (c: OpenCollection) => (c.balance !== undefined ? Money.min(c.balance, c.total) : new Money(c.total));

/** Overdue: past_due, or its due date has passed (an uncollectible one included). */
const overdue = (c: OpenCollection, now: Date) => c.status === 'past_due' || (c.due_date !== null && isPastDue(c.due_date, now));

/**
 * The order a registered payment is applied in (the spec's rule): overdue collections first, oldest
 * due date first; then upcoming ones, nearest due date first; collections without a due date last.
 * Ties (and those without a due date): a partial payment's chain in its order (the first collection
 * before its balance), then oldest created first, then by id.
 */
export function paymentOrder(open: OpenCollection[], now: Date): OpenCollection[] {
  const due = (c: OpenCollection) => (c.due_date === null ? Number.POSITIVE_INFINITY : Date.parse(c.due_date));
  return [...open].sort(
    (a, b) =>
      Number(overdue(b, now)) - Number(overdue(a, now)) ||
      due(a) - due(b) ||
      (a.depth ?? 0) - (b.depth ?? 0) ||
      (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * `POST /v1/customers/{id}/register_invoices_payment`: how `amount` is spread over the customer's
 * open collections (one currency) — each weighed at what is owed on it (`owedOn`: its fiscal
 * invoice's amount due when it has one, else its total) — in `paymentOrder`. The first decision (`strict`) refuses an
 * amount that is not a positive amount with the currency's digits (400 `parameter_invalid`), a
 * customer with nothing open (400 `no_open_collections`), an amount larger than the open balance
 * (400 `amount_exceeds_balance`) and an open collection with an attempt in flight (409
 * `payment_in_progress`). The rest of a payment whose application was interrupted by a concurrent
 * change (not strict) goes to what is open and not being collected, as far as it reaches.
 */
export function planRegisteredPayment(customerId: string, open: OpenCollection[], amount: string, cur: Currency, now: Date, strict = true): RegisteredPaymentStep[] {
  const wanted = checkAmount(amount, cur, 'amount');
  if (strict) {
    if (open.length === 0) throw new DomainError('no_open_collections', `Customer ${customerId} has no open collections (pending, past_due or uncollectible) to apply a payment to`, null, 400);
    const busy = open.find((c) => c.collecting);
    if (busy) throw new DomainError('payment_in_progress', `Cannot register the payment: collection ${busy.id} has a payment attempt in progress`, null, 409);
    const balance = open.reduce((sum, c) => sum.plus(owedOn(c)), new Money(0));
    if (wanted.gt(balance)) {
      throw new DomainError(
        'amount_exceeds_balance',
        `amount ${formatAmount(wanted, cur)} is more than the open balance of customer ${customerId}: ${formatAmount(balance, cur)} ${cur.code} over ${open.length} collection${open.length === 1 ? '' : 's'}`,
        'amount',
        400,
      );
    }
  }
  const steps: RegisteredPaymentStep[] = [];
  let remaining = wanted;
  for (const c of paymentOrder(open.filter((o) => !o.collecting && owedOn(o).gt(0)), now)) {
    if (remaining.lte(0)) break;
    const owed = owedOn(c);
    const take = Money.min(remaining, owed);
    const pays = take.eq(c.total);
    steps.push({ collection: c.id, amount: formatAmount(take, cur), expected_total: c.total, pays, settles_invoice: !pays && take.eq(owed) && owed.lt(c.total) });
    remaining = remaining.minus(take);
  }
  return steps;
}
