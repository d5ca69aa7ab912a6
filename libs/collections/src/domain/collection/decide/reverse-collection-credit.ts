import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { DomainError } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { ref } from '../collection.rules.js';

/**
 * A credit note applied to the collection was voided: what it took off is asked again. Only while the
 * collection is open (pending, past_due, uncollectible) with no attempt in flight: a collection that
 * is closed — paid (by money, or settled by this very credit), voided, refunded — cannot ask again, so
 * the void is refused (409) and the credit note stands (Stripe refuses voiding credit notes of paid
 * invoices likewise). A credit note never applied here, or already reversed, records nothing.
 */
export function decideReverseCollectionCredit(command: CommandOf<'ReverseCollectionCredit'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  const credit = (f.credit_notes ?? []).find((c) => c.credit_note === command.creditNoteId);
  if (!credit || credit.voided) return [];
  const refuse = (why: string, code = 'invalid_state') => new DomainError(code, `Cannot void credit note ${command.creditNoteId}: ${why}`, null, 409);
  if (inFlight(state) || f.status === 'processing') throw refuse(`collection ${id} has a payment in progress`, 'payment_in_progress');
  if (!PAYABLE.includes(f.status)) {
    const how = f.settled_by_credit_note ? ` (settled by credit note ${f.settled_by_credit_note})` : '';
    throw refuse(`collection ${id} is ${f.status}${how} and cannot ask for the credited amount again`);
  }
  const total = new Money(f.total).plus(credit.amount);
  return [
    {
      type: 'collection.credit_reversed',
      data: {
        ...ref(state, id),
        credit_note: credit.credit_note,
        invoice: f.invoice,
        amount: credit.amount,
        amount_credited: formatAmount(Money.max(new Money(f.amount_credited ?? '0').minus(credit.amount), 0), cur),
        previous_total: f.total,
        total: formatAmount(total, cur),
        reversed_at: command.now.toISOString(),
        meta_data: f.meta_data,
      },
    },
  ];
}
