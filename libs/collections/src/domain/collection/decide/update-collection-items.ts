import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { type LineInput, totals } from '../../pricing.js';
import { checkDiscounts, normalizeDiscount, priceCollection, ref, refusedInState, totalSetDirectly } from '../collection.rules.js';
import { currency as currencyOf } from '#shared/money.js';
import { invalidParam, invalidState, notFound } from '#shared/errors.js';

/**
 * New items, new discounts or a discount deleted: allowed while pending or past due with no attempt
 * in flight and a total that still comes from items and discounts; the money fields are recomputed.
 */
export function decideItemsOrDiscountsChange(
  command: CommandOf<'UpdateCollectionItems'> | CommandOf<'UpdateCollectionDiscounts'> | CommandOf<'DeleteCollectionDiscount'>,
  state: CollectionState,
): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const cur = currencyOf(f.currency)!;
  const what = command.type === 'UpdateCollectionItems' ? 'modify the items of' : 'modify the discounts of';
  if (f.status !== 'pending' && f.status !== 'past_due') throw refusedInState(what, id, f.status);
  if (inFlight(state)) throw refusedInState(what, id, 'collecting', 'payment_in_progress');
  const setDirectly = totalSetDirectly(f);
  if (setDirectly) throw invalidState(`Cannot ${what} collection ${id}: its total was set directly (${setDirectly}), not from items and discounts`);
  let lines: LineInput[] | null = null;
  let discounts = f.discounts;
  if (command.type === 'UpdateCollectionItems') {
    if (command.lines.length === 0) throw invalidParam('items', 'items must have at least one item');
    lines = command.lines;
  } else if (command.type === 'UpdateCollectionDiscounts') {
    checkDiscounts(command.discounts, cur);
    discounts = command.discounts.map((d) => normalizeDiscount(d, cur));
  } else {
    if (!f.discounts.some((d) => d.id === command.discountId)) throw notFound('discount', command.discountId);
    discounts = f.discounts.filter((d) => d.id !== command.discountId);
  }
  const priced = lines
    ? priceCollection(lines, discounts, cur)
    : { items: f.items ?? [], discounts, exchange_rates: f.exchange_rates, ...totals(f.items, discounts, cur) };
  return [
    {
      type: 'collection.updated',
      data: {
        ...ref(state, id),
        changes: {
          items: priced.items,
          discounts: priced.discounts,
          subtotal: priced.subtotal,
          total: priced.total,
          exchange_rates: priced.exchange_rates,
          discount_amounts: priced.discount_amounts,
        },
      },
    },
  ];
}

/** `POST …/items`: new items priced, the discounts kept. */
export function decideUpdateCollectionItems(command: CommandOf<'UpdateCollectionItems'>, state: CollectionState): CollectionEvent[] {
  return decideItemsOrDiscountsChange(command, state);
}
