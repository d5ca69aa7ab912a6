import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { ref, refusedInState } from '../collection.rules.js';

/** A pending or past-due collection with no attempt in flight is marked uncollectible. */
export function decideMarkUncollectible(command: CommandOf<'MarkUncollectible'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  if (f.status !== 'pending' && f.status !== 'past_due') throw refusedInState('mark uncollectible', id, f.status);
  if (inFlight(state)) throw refusedInState('mark uncollectible', id, 'collecting', 'payment_in_progress');
  return [{ type: 'collection.uncollectible', data: { ...ref(state, id), marked_at: now } }];
}
