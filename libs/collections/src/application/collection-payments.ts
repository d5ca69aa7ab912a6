import { Inject, Injectable } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { DomainError } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { isTokenizable } from '#payments/domain/gateways.js';
import { PAYMENT_GATEWAY, type PaymentGateway } from '#payments/gateways/payment-gateway.port.js';
import { SavePaymentMethod } from '#payments/application/save-payment-method.js';
import {
  type ChargeOutcome,
  type CollectionEvent,
  type CollectionPaid,
  type CollectionPaymentFailed,
  type CollectionState,
  type PaymentSource,
  collectionDecider,
  collectionStream,
  transactionInFlight,
} from '../domain/collection.decider.js';
import { PaymentFollowUps } from './payment-follow-ups.js';

import { STALE_ATTEMPT_MS } from '../domain/collection/collection.state.js';
export { STALE_ATTEMPT_MS };

/**
 * An attempt whose gateway answers are already known (a checkout session asks the gateway before it
 * makes what it sells): its transaction and charge ids, and each charge's outcome. The collection
 * records them as it would a gateway's answers, without asking again; a charge with no known
 * outcome is asked of the gateway (with its id as the idempotency key, so the same answer).
 */
export interface KnownAttempt {
  transactionId: string;
  charges: Array<{ id: string; outcome: ChargeOutcome | null }>;
}

export interface AttemptResult {
  /** Position of the last event written (for read-your-writes). */
  position: string | null;
  /** What the attempt ended as. */
  outcome: 'paid' | 'failed' | 'processing';
  failure: CollectionPaymentFailed['data'] | null;
  collection: CollectionState;
}


/**
 * Paying a collection: one attempt at a time. The attempt is started in the collection's stream with
 * its expected revision (so of twenty concurrent pays one starts, the others are refused), the
 * gateway is called with the charge id as its idempotency key, and the outcome is recorded; a
 * retryable technical failure is tried once more inside the same transaction. A paid collection
 * then saves a one-off tokenizable method and tells its subscription.
 */
@Injectable()
export class CollectionPayments {
  constructor(
    private readonly executor: AggregateExecutor,
    @Inject(PAYMENT_GATEWAY) private readonly gateway: PaymentGateway,
    private readonly savePaymentMethod: SavePaymentMethod,
    readonly followUps: PaymentFollowUps,
  ) {}

  /** `expectedAttempts`: an automatic attempt names the attempt count it expects (409 `attempt_already_made` otherwise). */
  async attempt(
    ctx: CommandContext,
    collectionId: string,
    source: PaymentSource,
    initiatedBy: 'merchant' | 'customer' | 'automatic',
    expectedAttempts?: number,
    known?: KnownAttempt,
  ): Promise<AttemptResult> {
    const transactionId = known?.transactionId ?? newId('tx');
    if (known) {
      // Recorded already (a resumed checkout attempt): only what is missing is recorded.
      const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
      const tx = state.transactions.find((t) => t.id === transactionId);
      if (tx) {
        const open = tx.charges.find((c) => c.status === 'in_progress');
        if (open) return this.runCharge(ctx, collectionId, open.id, open.try, state, null, known);
        const status = state.fields!.status;
        return { position: null, outcome: status === 'paid' || status === 'refunded' ? 'paid' : status === 'processing' ? 'processing' : 'failed', failure: null, collection: state };
      }
    }
    const start = () =>
      this.executor.execute(
        collectionDecider,
        collectionStream(collectionId),
        (now) => ({ type: 'StartPayment' as const, owner: ctx, collectionId, transactionId, chargeId: known?.charges[0]?.id ?? newId('ch'), source, initiatedBy, expectedAttempts, now }),
        ctx,
      );
    let started;
    try {
      started = await start();
    } catch (error) {
      // Refused because an attempt is in flight: if that attempt is stale (its process stopped),
      // reconcile it (the step the `reconcile` deadline runs) and start again; otherwise the refusal stands.
      if (!(error instanceof DomainError && error.code === 'payment_in_progress') || (await this.reconcileAbandoned(ctx, collectionId)) === null) throw error;
      started = await start();
    }
    const tx = started.state.transactions.find((t) => t.id === transactionId)!;
    return this.runCharge(ctx, collectionId, tx.charges[0].id, 1, started.state, started.position, known);
  }

  /**
   * An automatic attempt that cannot reach a gateway (no usable method): recorded as a failed attempt
   * with its reason (`collection.payment_failed`, no transaction), exactly where a decline would be.
   */
  async recordUnattemptable(ctx: CommandContext, collectionId: string, failure: { failure_code: string; failure_message: string }, expectedAttempts: number): Promise<string | null> {
    const { position } = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'RecordUnattemptablePayment' as const, owner: ctx, collectionId, failure, expectedAttempts, now }),
      ctx,
    );
    return position;
  }

  /** Calls the gateway for a charge already recorded as started, records the outcome, retries once if retryable. */
  private async runCharge(ctx: CommandContext, collectionId: string, chargeId: string, tryNumber: number, state: CollectionState, position: string | null, known?: KnownAttempt): Promise<AttemptResult> {
    const tx = state.transactions.find((t) => t.charges.some((c) => c.id === chargeId))!;
    // Inside a unit of work (create-subscription) the attempt may only be staged: it is on disk
    // before the gateway is asked (the exactly-one-charge guarantee rests on it).
    position = laterPosition(position, await this.executor.flush(ctx));
    const answered = known?.charges.find((c) => c.id === chargeId)?.outcome;
    const outcome = answered ?? await this.gateway.charge({
      idempotencyKey: chargeId,
      tryNumber,
      accountId: ctx.accountId,
      mode: ctx.mode,
      gateway: tx.source.gateway,
      method: tx.source.type,
      token: tx.source.token,
      details: tx.source.details,
      amount: tx.amount,
      currency: state.fields!.currency,
      description: `Collection ${collectionId}`,
    });
    // What follows the gateway's answer (the outcome, a saved card, the customer's default, the
    // subscription's activation…) is one commit on a store that allows it (AggregateExecutor.oneCommit).
    const section = await this.executor.oneCommit(ctx, () => this.record(ctx, collectionId, chargeId, outcome, position, known));
    return { ...section.result, position: laterPosition(section.result.position, section.position) };
  }

  /** Records a charge's outcome (from the gateway, or from the settle/fail test helper) and its follow-ups. */
  async record(ctx: CommandContext, collectionId: string, chargeId: string, outcome: ChargeOutcome, position: string | null = null, known?: KnownAttempt): Promise<AttemptResult> {
    if (outcome.status === 'succeeded') position = laterPosition(position, await this.followUps.paymentSucceeding(ctx, collectionId, chargeId));
    const recorded = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'RecordChargeOutcome' as const, owner: ctx, collectionId, chargeId, outcome, now }),
      ctx,
    );
    position = laterPosition(position, recorded.position);
    const events = recorded.events as unknown as CollectionEvent[];
    const state = recorded.state;
    const tx = state.transactions.find((t) => t.charges.some((c) => c.id === chargeId))!;
    const failed = events.find((e): e is CollectionPaymentFailed => e.type === 'collection.payment_failed');
    const paid = events.find((e): e is CollectionPaid => e.type === 'collection.paid');
    if (outcome.status === 'failed' && !failed && !paid && events.length > 0) {
      // Retryable technical failure: a second gateway-level try inside the same transaction.
      const retryId = known?.charges[tx.charges.length]?.id ?? newId('ch');
      const retried = await this.executor.execute(
        collectionDecider,
        collectionStream(collectionId),
        (now) => ({ type: 'RetryCharge' as const, owner: ctx, collectionId, transactionId: tx.id, chargeId: retryId, now }),
        ctx,
      );
      const charge = retried.state.transactions.find((t) => t.id === tx.id)!.charges.find((c) => c.id === retryId)!;
      return this.runCharge(ctx, collectionId, retryId, charge.try, retried.state, laterPosition(position, retried.position), known);
    }
    if (paid) position = laterPosition(position, await this.afterPaid(ctx, state, paid.data, tx.source));
    if (failed) position = laterPosition(position, await this.followUps.paymentFailed(ctx, collectionId, { failure_code: failed.data.failure_code ?? null, failure_message: failed.data.failure_message ?? null, decline_code: failed.data.decline_code ?? null }));
    const status = state.fields!.status;
    return {
      position,
      outcome: status === 'paid' || status === 'refunded' ? 'paid' : status === 'processing' ? 'processing' : 'failed',
      failure: failed?.data ?? null,
      collection: state,
    };
  }

  /**
   * The follow-ups of a collection already paid, read from its stream: what a process that stopped
   * right after `collection.paid` never did (save the one-off method, tell the subscription).
   */
  async followUpPaid(ctx: CommandContext, collectionId: string): Promise<string | null> {
    const { state, history } = await this.executor.loadHistory(collectionDecider, collectionStream(collectionId));
    const paid = [...history].reverse().find((e) => e.type === 'collection.paid');
    if (!paid) return null;
    const data = paid.data as unknown as CollectionPaid['data'];
    const source = state.transactions.find((t) => t.id === data.transaction)?.source ?? null;
    return this.afterPaid(ctx, state, data, source);
  }

  /** What follows a payment: save the one-off method, tell the subscription. Idempotent. */
  async afterPaid(ctx: CommandContext, state: CollectionState, paid: CollectionPaid['data'], source: PaymentSource | null): Promise<string | null> {
    let position: string | null = null;
    if (source?.save_as) position = await this.savePaymentMethod.afterPayment(ctx, paid.customer, source);
    const paymentMethod = paid.saved_payment_method ?? paid.payment_method;
    const notice = {
      collectionId: paid.id,
      subscriptionId: state.fields!.subscription,
      customerId: paid.customer,
      paymentMethod,
      tokenizable: paymentMethod !== null && isTokenizable(paid.payment_method_type ?? ''),
      billingReason: state.fields!.billing_reason,
    };
    return laterPosition(position, await this.followUps.collectionPaid(ctx, notice));
  }

  /**
   * An attempt left in flight by a process that stopped, for longer than STALE_ATTEMPT_MS: its
   * outcome is asked of the gateway again with the same charge id (it answers with the first outcome,
   * never charging twice) and recorded, or a transaction whose retry never started is closed. Run by
   * the scheduler's `reconcile` deadline, and by a new pay request that finds the attempt in its way.
   * Returns null when nothing was stale, else the position written (null if another writer did it).
   */
  async reconcileAbandoned(ctx: CommandContext, collectionId: string): Promise<{ position: string | null } | null> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    const tx = state.exists ? transactionInFlight(state) : null;
    if (!tx) return null;
    const last = tx.charges[tx.charges.length - 1];
    if (this.executor.now(ctx).getTime() - Date.parse(last?.started_at ?? tx.started_at) < STALE_ATTEMPT_MS) return null;
    if (last && last.status === 'in_progress') return { position: (await this.runCharge(ctx, collectionId, last.id, last.try, state, null)).position };
    const { position } = await this.executor.execute(
      collectionDecider,
      collectionStream(collectionId),
      (now) => ({ type: 'AbandonTransaction' as const, owner: ctx, collectionId, transactionId: tx.id, now }),
      ctx,
    );
    return { position };
  }
}
