import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, MAX_CHARGES_PER_TRANSACTION } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { invalidState } from '#shared/errors.js';
import { ref } from '../collection.rules.js';

/** A retryable failed charge is tried once more within its transaction. */
export function decideRetryCharge(command: CommandOf<'RetryCharge'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  const tx = state.transactions.find((t) => t.id === command.transactionId);
  if (!tx || tx.status !== 'in_progress') throw invalidState(`Transaction ${command.transactionId} is not in progress`);
  const last = tx.charges[tx.charges.length - 1];
  if (!last || last.status !== 'failed' || !last.retryable || tx.charges.length >= MAX_CHARGES_PER_TRANSACTION) {
    throw invalidState(`Transaction ${command.transactionId} cannot be retried`);
  }
  return [
    {
      type: 'charge.created',
      data: {
        ...ref(state, id),
        collection: id,
        transaction: tx.id,
        charge: command.chargeId,
        try: last.try + 1,
        amount: tx.amount,
        currency: f.currency,
        payment_method: tx.source.payment_method,
        gateway: tx.source.gateway,
        payment_method_type: tx.source.type,
        created_at: now,
      },
    },
  ];
}
