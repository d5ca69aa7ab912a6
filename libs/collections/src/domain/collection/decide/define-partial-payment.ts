import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, type PartialPayment, inFlight } from '../collection.state.js';
import { dueDateAfterDays } from '#shared/dates.js';
import type { CommandOf } from '../collection.commands.js';
import { DomainError, invalidParam, invalidState, missingParam } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { checkAmount, ref, refusedInState } from '../collection.rules.js';

/**
 * `POST …/partial_payment`: only `type=invoice` + `collection_method=collect` (400 otherwise, the
 * spec's rejection), `pending`/`past_due` with no attempt in flight (409 naming the state), once per
 * collection and not after a registered payment was applied to it; 0 < amount < total. The total
 * becomes `amount` (subtotal and items kept); with `balance` the event names the balance collection
 * the handler creates next (due `days_until_due` days from now). A collection with a fiscal invoice
 * (`invoice`) is weighed against the invoice's amount due: void/paid refused (409), amount below what
 * is owed, and the balance is what is owed less the amount (the credited part is not asked again).
 */
export function decideDefinePartialPayment(command: CommandOf<'DefinePartialPayment'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  const what = 'define a partial payment on';
  if (f.type !== 'invoice' || f.collection_method !== 'collect') {
    throw new DomainError(
      'partial_payment_not_allowed',
      `partial_payment is only valid for a collection with type invoice and collection_method collect; collection ${id} has type ${f.type} and collection_method ${f.collection_method}`,
      null,
      400,
    );
  }
  if (f.status !== 'pending' && f.status !== 'past_due') throw refusedInState(what, id, f.status);
  if (inFlight(state)) throw refusedInState(what, id, 'collecting', 'payment_in_progress');
  if (f.partial_payment) throw invalidState(`Cannot ${what} collection ${id}: a partial payment of ${f.partial_payment.amount} is already defined on it`);
  if (new Money(f.amount_applied ?? '0').gt(0)) throw invalidState(`Cannot ${what} collection ${id}: a registered payment of ${f.amount_applied} was already applied to it`);
  const amount = checkAmount(command.amount, cur, 'amount');
  if (amount.gte(f.total)) throw invalidParam('amount', `amount must be less than the total of collection ${id} (${f.total} ${cur.code})`);
  // With a fiscal invoice, its real balance: credit notes may have taken part of the collection's total off.
  const inv = command.invoice ?? null;
  if (inv && (inv.status === 'void' || inv.status === 'paid')) throw invalidState(`Cannot ${what} collection ${id}: its invoice ${inv.id} is ${inv.status}`);
  const owed = inv ? Money.min(f.total, inv.amount_due) : new Money(f.total);
  if (inv && amount.gte(owed)) throw invalidParam('amount', `amount must be less than the amount due on invoice ${inv.id} (${formatAmount(owed, cur)} ${cur.code})`);
  const balance = command.balance;
  if (balance && (balance.days_until_due === null || balance.days_until_due === undefined)) {
    throw missingParam('days_until_due', 'days_until_due is required with create_collection_with_balance');
  }
  const partial: PartialPayment = {
    original_total: f.total,
    amount: formatAmount(amount, cur),
    balance: formatAmount(owed.minus(amount), cur),
    balance_collection: balance?.collectionId ?? null,
  };
  return [
    {
      type: 'collection.partial_payment_defined',
      data: {
        ...ref(state, id),
        partial_payment: partial,
        total: partial.amount,
        defined_at: command.now.toISOString(),
        balance_due_date: balance ? dueDateAfterDays(command.now, balance.days_until_due!) : null,
        balance_collection_rule_id: balance?.collection_rule_id ?? null,
      },
    },
  ];
}
