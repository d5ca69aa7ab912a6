import type { CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { paymentFailed, ref } from '../collection.rules.js';
import { assertCanAttempt } from './start-payment.js';

/**
 * An automatic attempt (a charge renewal, a dunning retry) that cannot reach a gateway: a failed
 * attempt all the same — `collection.payment_failed` with the reason and no transaction, counted in
 * `collection_attempts` — refused like any attempt and naming the count it expects. Past due, it
 * uses up the dunning step and reminds the customer (the checkout link to pay or add a method).
 */
export function decideRecordUnattemptablePayment(command: CommandOf<'RecordUnattemptablePayment'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  assertCanAttempt(state, id, command.expectedAttempts);
  const failed = paymentFailed(state, id, null, null, { ...command.failure, decline_code: null });
  if (f.status !== 'past_due') return [failed];
  const { dunning_step, next_collection_attempt_date } = failed.data;
  return [
    failed,
    {
      type: 'collection.reminder',
      data: { ...ref(state, id), dunning_step: dunning_step!, next_collection_attempt_date: next_collection_attempt_date!, checkout_url: f.checkout_url, sent_at: command.now.toISOString(), meta_data: f.meta_data },
    },
  ];
}
