import type { CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { decideItemsOrDiscountsChange } from '../decide/update-collection-items.js';

/** One discount removed: the totals recomputed. */
export function decideDeleteCollectionDiscount(command: CommandOf<'DeleteCollectionDiscount'>, state: CollectionState): CollectionEvent[] {
  return decideItemsOrDiscountsChange(command, state);
}
