import type { CollectionEvent } from '../collection.events.js';
import { type CollectionState, PAYABLE, awaitingCustomer, inFlight } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { DomainError } from '#shared/errors.js';
import { Money } from '#shared/money.js';
import { ref, refusedInState } from '../collection.rules.js';

/** What every payment attempt needs: a payable collection with something to pay, nothing in flight, the attempt count expected. */
export function assertCanAttempt(state: CollectionState, id: string, expectedAttempts: number | undefined): void {
  const f = state.fields!;
  if (f.status === 'paid' || f.status === 'refunded') throw refusedInState('pay', id, f.status, 'collection_already_paid');
  if (f.status === 'processing' || awaitingCustomer(state)) throw refusedInState('pay', id, 'processing (a payment awaits the customer)', 'payment_in_progress');
  if (!PAYABLE.includes(f.status)) throw refusedInState('pay', id, f.status);
  if (inFlight(state)) {
    throw new DomainError('payment_in_progress', `Cannot pay collection ${id}: another payment attempt is in progress`, null, 409);
  }
  if (new Money(f.total).lte(0)) throw refusedInState('pay', id, `${f.status} with a total of 0`);
  if (expectedAttempts !== undefined && expectedAttempts !== f.collection_attempts) {
    throw new DomainError('attempt_already_made', `Collection ${id} was attempted ${f.collection_attempts} times, not ${expectedAttempts}`, null, 409);
  }
}

/** A payment attempt starts: a transaction and its first charge, only when nothing else is in flight or awaits the customer. */
export function decideStartPayment(command: CommandOf<'StartPayment'>, state: CollectionState): CollectionEvent[] {
  const f = state.fields!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  assertCanAttempt(state, id, command.expectedAttempts);
  const base = { ...ref(state, id), collection: id, transaction: command.transactionId };
  return [
    {
      type: 'transaction.created',
      data: {
        ...base,
        amount: f.total,
        currency: f.currency,
        payment_method: command.source.payment_method,
        gateway: command.source.gateway,
        payment_method_type: command.source.type,
        initiated_by: command.initiatedBy,
        created_at: now,
        source: command.source,
      },
    },
    {
      type: 'charge.created',
      data: {
        ...base,
        charge: command.chargeId,
        try: 1,
        amount: f.total,
        currency: f.currency,
        payment_method: command.source.payment_method,
        gateway: command.source.gateway,
        payment_method_type: command.source.type,
        created_at: now,
      },
    },
  ];
}
