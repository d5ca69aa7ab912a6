import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { checkAmount, paidEvent, ref, refusedInState } from '../collection.rules.js';
import { evolveCollection } from '../collection.evolve.js';

/**
 * Part of a registered payment: pays the collection out of band when it covers `expectedTotal`, else
 * lowers it — and then pays it when the amount settles its fiscal invoice (`settlesInvoice`).
 */
export function decideApplyRegisteredPayment(command: CommandOf<'ApplyRegisteredPayment'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  const cur = currencyOf(f.currency)!;
  const what = 'apply a registered payment to';
  if (f.status === 'paid' || f.status === 'refunded') throw refusedInState(what, id, f.status, 'collection_already_paid');
  if (inFlight(state) || f.status === 'processing') throw refusedInState(what, id, f.collecting ? 'collecting' : 'processing', 'payment_in_progress');
  if (!PAYABLE.includes(f.status)) throw refusedInState(what, id, f.status);
  if (!new Money(f.total).eq(command.expectedTotal)) {
    throw new DomainError('concurrent_update', `Collection ${id} changed while the payment was being applied: its total is ${f.total}, not ${formatAmount(command.expectedTotal, cur)}`, null, 409);
  }
  const amount = checkAmount(command.amount, cur, 'amount');
  if (amount.gt(f.total)) throw invalidParam('amount', `amount must be at most the total ${f.total} of collection ${id}`);
  if (amount.eq(f.total)) return [paidEvent(state, id, now, { paid_out_of_band: true, paid_by: command.receiptId })];
  const applied: CollectionEvent = {
    type: 'collection.payment_applied',
    data: {
      ...ref(state, id),
      receipt: command.receiptId,
      amount: formatAmount(amount, cur),
      amount_applied: formatAmount(amount.plus(f.amount_applied), cur),
      previous_total: f.total,
      total: formatAmount(new Money(f.total).minus(amount), cur),
      applied_at: now,
      meta_data: f.meta_data,
    },
  };
  if (!command.settlesInvoice) return [applied];
  // The amount settles the fiscal invoice (credit notes took the rest off): paid, the rest covered by the credit notes.
  return [applied, paidEvent(evolveCollection(state, applied), id, now, { paid_out_of_band: true, paid_by: command.receiptId })];
}
