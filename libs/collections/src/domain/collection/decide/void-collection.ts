import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { ref, refusedInState } from '../collection.rules.js';

/** A payable collection with no attempt in flight is voided. */
export function decideVoidCollection(command: CommandOf<'VoidCollection'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  if (!PAYABLE.includes(f.status)) throw refusedInState('void', id, f.status);
  if (inFlight(state)) throw refusedInState('void', id, 'collecting', 'payment_in_progress');
  return [{ type: 'collection.voided', data: { ...ref(state, id), voided_at_date: now } }];
}
