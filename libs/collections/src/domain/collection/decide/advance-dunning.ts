import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, DEFAULT_RETRY_SCHEDULE, dunningDate, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { ref } from '../collection.rules.js';

/** A past-due collection's next dunning date came: a reminder (collect), or, retries spent, uncollectible. Charge retries are StartPayment. */
export function decideAdvanceDunning(command: CommandOf<'AdvanceDunning'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  if (f.status !== 'past_due' || !f.next_collection_attempt_date || Date.parse(f.next_collection_attempt_date) > command.now.getTime() || inFlight(state)) return [];
  const schedule = f.retry_schedule ?? DEFAULT_RETRY_SCHEDULE;
  if (f.dunning_step >= schedule.retry_days.length) {
    return [{ type: 'collection.uncollectible', data: { ...ref(state, id), marked_at: now, reason: 'retries_exhausted' } }];
  }
  if (f.collection_method === 'charge' && command.canRetry !== false) return []; // a charge retry is a payment attempt (StartPayment)
  const step = f.dunning_step + 1;
  return [
    {
      type: 'collection.reminder',
      data: { ...ref(state, id), dunning_step: step, next_collection_attempt_date: dunningDate(f, step), checkout_url: f.checkout_url, sent_at: now, meta_data: f.meta_data },
    },
  ];
}
