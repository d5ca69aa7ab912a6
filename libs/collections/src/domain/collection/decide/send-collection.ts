import type { CollectionEvent } from '../collection.events.js';
import { SENDABLE, type CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { ref, refusedInState } from '../collection.rules.js';

/** A pending, past-due or processing collection is sent (again) with its checkout url. */
export function decideSendCollection(command: CommandOf<'SendCollection'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  if (!SENDABLE.includes(f.status)) throw refusedInState('send', id, f.status);
  return [{ type: 'collection.sent', data: { ...ref(state, id), sent_at: now, checkout_url: f.checkout_url } }];
}
