import type { CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { decideItemsOrDiscountsChange } from '../decide/update-collection-items.js';

/** New discounts: the totals recomputed, items and conversion rates kept. */
export function decideUpdateCollectionDiscounts(command: CommandOf<'UpdateCollectionDiscounts'>, state: CollectionState): CollectionEvent[] {
  return decideItemsOrDiscountsChange(command, state);
}
