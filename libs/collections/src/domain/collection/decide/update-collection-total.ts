import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { DomainError } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import { checkAmount, ref, refusedInState } from '../collection.rules.js';

/**
 * `POST …/update/total`: the spec's five conditions, each a 400 `collection_total_not_updatable`
 * naming it — status pending/past_due/uncollectible; no items; type invoice; new total ≤ the
 * invoice's balance (total − total paid); new total + the invoice's other collections ≤ its total.
 */
export function decideUpdateCollectionTotal(command: CommandOf<'UpdateCollectionTotal'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  const total = checkAmount(command.total, cur, 'total');
  const refuse = (why: string, param: string | null = null) => new DomainError('collection_total_not_updatable', `Cannot update the total of collection ${id}: ${why}`, param, 400);
  if (!PAYABLE.includes(f.status)) throw refuse(`its status is ${f.status}; it must be pending, past_due or uncollectible`);
  if (f.items !== null) throw refuse('it has items; only a collection without items (items null) can have its total set');
  if ((f.type as string) !== 'invoice') throw refuse(`its type is ${f.type}; it must be invoice`);
  const inv = command.invoice;
  const credited = new Money(inv.credited ?? '0');
  const balance = Money.max(new Money(inv.total).minus(inv.total_paid).minus(credited), new Money(0));
  if (total.gt(balance)) {
    const less = credited.gt(0) ? `${inv.total_paid} paid and ${formatAmount(credited, cur)} credited` : `${inv.total_paid} paid`;
    throw refuse(
      `the new total ${formatAmount(total, cur)} is more than the balance of invoice ${inv.id}: ${formatAmount(balance, cur)} (invoice total ${inv.total} less ${less})`,
      'total',
    );
  }
  const sum = total.plus(inv.other_totals);
  // With a fiscal invoice, what its credit notes took off is not asked for again.
  const cap = new Money(inv.total).minus(credited);
  if (sum.gt(cap)) {
    const of = credited.gt(0) ? `the invoice total ${inv.total} less ${formatAmount(credited, cur)} credited` : `the invoice total ${inv.total}`;
    throw refuse(
      `the new total ${formatAmount(total, cur)} plus the totals of the other collections of invoice ${inv.id} (${inv.other_totals}) is ${formatAmount(sum, cur)}, more than ${of}`,
      'total',
    );
  }
  if (inFlight(state)) throw refusedInState('update the total of', id, 'collecting', 'payment_in_progress');
  if (total.eq(f.total)) return [];
  const next = formatAmount(total, cur);
  return [
    {
      type: 'collection.total_updated',
      data: { ...ref(state, id), previous_total: f.total, total: next, subtotal: next, invoice: inv.id, updated_at: command.now.toISOString() },
    },
  ];
}
