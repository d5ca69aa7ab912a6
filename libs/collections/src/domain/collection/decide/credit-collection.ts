import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { DomainError } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { checkAmount, paidEvent, ref, refusedInState } from '../collection.rules.js';
import { evolveCollection } from '../collection.evolve.js';

/**
 * A credit note of the collection's fiscal invoice: `amount` comes off what the collection asks (its
 * `total`), so charges, retries, reminders, the hosted page and registered payments ask only the rest.
 * Decided against the total the caller saw (`expectedTotal`): a payment or another credit that changed
 * it first refuses this one, so no balance is ever taken off twice. A credit that takes the total to 0
 * settles the collection as a payment in full would (`collection.paid`, no money, `credit_note` named):
 * its subscription is told. The same credit note again records nothing.
 */
export function decideCreditCollection(command: CommandOf<'CreditCollection'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  if ((f.credit_notes ?? []).some((c) => c.credit_note === command.creditNoteId)) return [];
  const what = `apply credit note ${command.creditNoteId} to`;
  if (inFlight(state) || f.status === 'processing') throw refusedInState(what, id, f.collecting ? 'collecting' : 'processing', 'payment_in_progress');
  if (!PAYABLE.includes(f.status)) throw refusedInState(what, id, f.status);
  if (!new Money(f.total).eq(command.expectedTotal)) {
    throw new DomainError('concurrent_update', `Collection ${id} changed while the credit note was being applied: its total is ${f.total}, not ${formatAmount(command.expectedTotal, cur)}`, null, 409);
  }
  const amount = checkAmount(command.amount, cur, 'amount');
  if (amount.gt(f.total)) {
    throw new DomainError('credit_note_exceeds_balance', `amount ${formatAmount(amount, cur)} is more than collection ${id} still asks: ${f.total}`, 'amount', 400);
  }
  const now = command.now.toISOString();
  const credited: CollectionEvent = {
    type: 'collection.credited',
    data: {
      ...ref(state, id),
      credit_note: command.creditNoteId,
      invoice: command.invoiceId,
      amount: formatAmount(amount, cur),
      amount_credited: formatAmount(amount.plus(f.amount_credited ?? '0'), cur),
      previous_total: f.total,
      total: formatAmount(new Money(f.total).minus(amount), cur),
      credited_at: now,
      meta_data: f.meta_data,
    },
  };
  if (amount.lt(f.total)) return [credited];
  return [credited, paidEvent(evolveCollection(state, credited), id, now, { credit_note: command.creditNoteId })];
}
