import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { invalidParam } from '#shared/errors.js';
import { paidEvent, refusedInState } from '../collection.rules.js';

/** Paid outside the gateways, with an optional http(s) proof. */
export function decidePayOutOfBand(command: CommandOf<'PayOutOfBand'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  if (f.status === 'paid' || f.status === 'refunded') throw refusedInState('pay', id, f.status, 'collection_already_paid');
  if (inFlight(state) || f.status === 'processing') throw refusedInState('pay out of band', id, f.collecting ? 'collecting' : 'processing', 'payment_in_progress');
  if (!PAYABLE.includes(f.status)) throw refusedInState('pay', id, f.status);
  if (command.proof !== null && !/^https?:\/\/\S+$/.test(command.proof)) throw invalidParam('out_of_band_proof', 'out_of_band_proof must be an http(s) URL');
  return [paidEvent(state, id, now, { paid_out_of_band: true, out_of_band_proof: command.proof })];
}
