import type { CollectionEvent } from '../collection.events.js';
import type { CollectionState } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { paymentFailed } from '../collection.rules.js';

/**
 * Closes a transaction whose last charge failed but which was left open (its retry never ran, e.g.
 * the process stopped): the attempt is recorded as failed so a new one can start.
 */
export function decideAbandon(state: CollectionState, collectionId: string, transactionId: string): CollectionEvent[] {
  const tx = state.transactions.find((t) => t.id === transactionId);
  if (!tx || tx.status !== 'in_progress') return [];
  const last = tx.charges[tx.charges.length - 1];
  if (!last || last.status !== 'failed') return [];
  return [paymentFailed(state, collectionId, tx.id, last.id, { failure_code: 'processing_error', failure_message: 'The payment attempt was not completed.', decline_code: null })];
}

export function decideAbandonTransaction(command: CommandOf<'AbandonTransaction'>, state: CollectionState): CollectionEvent[] {
  return decideAbandon(state, command.collectionId, command.transactionId);
}
