import type { ChargeFailed, CollectionEvent } from '../collection.events.js';
import { type CollectionState, MAX_CHARGES_PER_TRANSACTION } from '../collection.state.js';
import type { CommandOf } from '../collection.commands.js';
import { notFound } from '#shared/errors.js';
import { paidEvent, paymentFailed, ref } from '../collection.rules.js';

/** A charge's outcome from the gateway: paid, pending (awaits the customer) or failed (retryable or not); recorded once. */
export function decideRecordChargeOutcome(command: CommandOf<'RecordChargeOutcome'>, state: CollectionState): CollectionEvent[] {
  const tx = state.transactions.find((t) => t.charges.some((c) => c.id === command.chargeId));
  if (!tx) throw notFound('charge', command.chargeId);
  const charge = tx.charges.find((c) => c.id === command.chargeId)!;
  const id = command.collectionId;
  const now = command.now.toISOString();
  const o = command.outcome;
  // Idempotent: an outcome already recorded (a retry after a crash, a racing settle) changes nothing.
  if (charge.status === 'succeeded' || charge.status === 'failed') return [];
  if (charge.status === 'pending' && o.status === 'pending') return [];
  const base = { ...ref(state, id), collection: id, transaction: tx.id, charge: charge.id };
  if (o.status === 'pending') {
    return [{ type: 'charge.pending', data: { ...base, gateway_reference: o.gateway_reference, additional_data: o.additional_data } }];
  }
  if (o.status === 'succeeded') {
    const f = state.fields!;
    if (f.status === 'paid' || f.status === 'refunded') {
      // Cannot happen while one attempt runs at a time; recorded so the money is visible, flagged for refund.
      return [{ type: 'charge.paid', data: { ...base, gateway_reference: o.gateway_reference, paid_at: now } }];
    }
    return [
      { type: 'charge.paid', data: { ...base, gateway_reference: o.gateway_reference, paid_at: now } },
      paidEvent(state, id, now, {
        transaction: tx.id,
        charge: charge.id,
        payment_method: tx.source.payment_method,
        payment_method_gateway: tx.source.gateway,
        payment_method_type: tx.source.type,
        saved_payment_method: tx.source.save_as?.payment_method_id ?? null,
      }),
    ];
  }
  const retry = o.retryable && charge.status === 'in_progress' && tx.charges.length < MAX_CHARGES_PER_TRANSACTION;
  const failed: ChargeFailed = {
    type: 'charge.failed',
    data: {
      ...base,
      gateway_reference: o.gateway_reference,
      failure_code: o.failure_code,
      failure_message: o.failure_message,
      decline_code: o.decline_code,
      retryable: retry,
      failed_at: now,
    },
  };
  if (retry) return [failed];
  return [failed, paymentFailed(state, id, tx.id, charge.id, o)];
}
