import type { CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { Money, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import { invalidParam } from '#shared/errors.js';
import { ref, refusedInState } from '../collection.rules.js';

/** All or part of what is left to refund of a paid collection. */
export function decideRefundCollection(command: CommandOf<'RefundCollection'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  const cur = currencyOf(f.currency)!;
  if (f.status !== 'paid') throw refusedInState('refund', id, f.status);
  const remaining = new Money(f.total).minus(f.amount_refunded);
  let amount = remaining;
  if (command.amount !== null) {
    if (!isDecimalString(command.amount) || new Money(command.amount).lte(0)) throw invalidParam('amount', 'amount must be a positive decimal amount');
    if (decimalPlaces(command.amount) > cur.exponent) throw invalidParam('amount', `amount has more decimals than ${cur.code} allows (${cur.exponent})`);
    amount = new Money(command.amount);
    if (amount.gt(remaining)) throw invalidParam('amount', `amount must be at most the refundable ${formatAmount(remaining, cur)} ${cur.code}`);
  }
  if (amount.lte(0)) throw refusedInState('refund', id, `${f.status} with nothing left to refund`);
  const refunded = new Money(f.amount_refunded).plus(amount);
  const paidCharge = state.transactions.flatMap((t) => t.charges).find((c) => c.status === 'succeeded');
  return [
    {
      type: 'collection.refunded',
      data: {
        ...ref(state, id),
        refund: command.refundId,
        amount: formatAmount(amount, cur),
        amount_refunded: formatAmount(refunded, cur),
        status: refunded.gte(f.total) ? 'refunded' : 'paid',
        charge: paidCharge?.id ?? null,
        reason: command.reason,
        refunded_at: now,
      },
    },
  ];
}
