import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, dunningDate, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { ref } from '../collection.rules.js';
import { isPastDue } from '#shared/dates.js';

/** The due date passed unpaid: past due, the first dunning date set. */
export function decideMarkPastDue(command: CommandOf<'MarkPastDue'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  if (f.status !== 'pending' || !f.due_date || !isPastDue(f.due_date, command.now) || inFlight(state)) return [];
  return [{ type: 'collection.past_due', data: { ...ref(state, id), due_date: f.due_date, next_collection_attempt_date: dunningDate(f, 0), meta_data: f.meta_data } }];
}
