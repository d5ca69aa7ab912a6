import { Inject, Injectable } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { DomainError } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import { CollectionPayments } from '#collections/application/collection-payments.js';
import { type CollectionEvent, collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { SubscriptionBilling } from '#subscriptions/application/subscription-billing.js';
import { type SubscriptionCommand, type SubscriptionEvent, type SubscriptionState, subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import type { SubscriptionDoc } from '#subscriptions/read-models/subscription.read-model.js';
import type { CollectionDoc } from '#collections/read-models/collection.read-model.js';

/** The usage-reporting wait of `usage_based` renewals (the spec's "about 5 minutes"; env USAGE_WAIT_MS). */
export const DEFAULT_USAGE_WAIT_MS = 5 * 60_000;


/** Refusals a deadline may meet because another worker (or a request) got there first: nothing to do. */
const RACES = new Set(['payment_in_progress', 'collection_already_paid', 'attempt_already_made', 'invalid_state']);

/**
 * What each deadline does. Every action is a command decided against its aggregate with the stream's
 * expected revision, and every command names what it expects (the renewal date, the attempt count),
 * so two workers acting on one deadline end with one effect; the follow-ups (collection of a renewal,
 * its attempt, the subscription's status) are idempotent and, if a worker stops half-way, are
 * deadlines of their own (`sync`, `past_due`, `dunning`).
 */
@Injectable()
export class DeadlineActions {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly billing: SubscriptionBilling,
    private readonly payments: CollectionPayments,
    private readonly sources: ResolvePaymentSource,
    @Inject(CONFIG) config: Config,
  ) {
    this.usageWaitMs = config.scheduler?.usageWaitMs ?? DEFAULT_USAGE_WAIT_MS;
  }

  readonly usageWaitMs: number;

  /**
   * Runs a subscription's deadline. The streams it touched are forgotten by the executor afterwards:
   * a run renews each subscription once a cycle, so remembering 100,000 renewed states would only
   * fill the memory (flat in the number renewed) and push out the shared hot ones (customers,
   * payment methods, the account) that every renewal reads.
   */
  async subscription(ctx: CommandContext, doc: SubscriptionDoc): Promise<string | null> {
    const touched = [subscriptionStream(doc.id), ...(doc.latest_collection ? [collectionStream(doc.latest_collection)] : [])];
    try {
      return await this.runSubscription(ctx, doc, touched);
    } finally {
      this.executor.forget(...touched);
    }
  }

  /** Runs a collection's deadline; its streams are forgotten afterwards (see `subscription`). */
  async collection(ctx: CommandContext, doc: CollectionDoc): Promise<string | null> {
    try {
      return await this.runCollection(ctx, doc);
    } finally {
      this.executor.forget(collectionStream(doc.id), ...(doc.subscription ? [subscriptionStream(doc.subscription)] : []));
    }
  }

  private async runSubscription(ctx: CommandContext, doc: SubscriptionDoc, touched: string[]): Promise<string | null> {
    const id = doc.id;
    const on = (command: (now: Date) => SubscriptionCommand) => this.executor.execute(subscriptionDecider, subscriptionStream(id), command, ctx);
    switch (doc._due_kind) {
      case 'renew': {
        const collectionId = newId('col');
        touched.push(collectionStream(collectionId));
        const renewed = await on((now) => ({
          type: 'RenewSubscription',
          owner: ctx,
          subscriptionId: id,
          expected: doc.next_renewal_date!,
          collectionId,
          usageWaitMs: this.usageWaitMs,
          now,
        }));
        const events = renewed.events as unknown as SubscriptionEvent[];
        if (!events.some((e) => e.type === 'subscription.renewed' || e.type === 'subscription.started')) return renewed.position;
        return laterPosition(renewed.position, await this.billCollection(ctx, id, collectionId, renewed.state, true));
      }
      case 'expire': {
        const expired = await on((now) => ({ type: 'ExpireSubscription', owner: ctx, subscriptionId: id, now }));
        if (!expired.events.length || !doc.latest_collection) return expired.position;
        // The first payment never came: its collection is voided (unless it is being paid right now).
        const voided = await this.ignoreRaces(() =>
          this.executor.execute(collectionDecider, collectionStream(doc.latest_collection!), (now) => ({ type: 'VoidCollection' as const, owner: ctx, collectionId: doc.latest_collection!, now }), ctx),
        );
        return laterPosition(expired.position, voided?.position ?? null);
      }
      case 'cancel':
        return (await on((now) => ({ type: 'CancelAtPeriodEnd', owner: ctx, subscriptionId: id, now }))).position;
      case 'resume':
        return (await on((now) => ({ type: 'ResumeOnSchedule', owner: ctx, subscriptionId: id, now }))).position;
      case 'sync':
        return this.sync(ctx, doc);
      default:
        return null;
    }
  }

  private async runCollection(ctx: CommandContext, doc: CollectionDoc): Promise<string | null> {
    const id = doc.id;
    const stream = collectionStream(id);
    switch (doc._due_kind) {
      case 'attempt': {
        // A renewal's collection left unattempted by a crash: the attempt the renewal would have made
        // (naming the attempt count it expects, so it is made once however many workers see it).
        if (!doc.subscription) return null;
        const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(doc.subscription));
        if (!state.fields) return null;
        return this.ignoreRaces(() => this.billing.attempt(ctx, state.fields!, id, null, true));
      }
      case 'reconcile':
        // An attempt left in flight by a process that stopped (see collections.projection.ts).
        return this.ignoreRaces(async () => (await this.payments.reconcileAbandoned(ctx, id))?.position ?? null);
      case 'past_due': {
        const marked = await this.executor.execute(collectionDecider, stream, (now) => ({ type: 'MarkPastDue' as const, owner: ctx, collectionId: id, now }), ctx);
        if (!marked.events.length || !doc.subscription) return marked.position;
        return laterPosition(marked.position, await this.subscriptionFollowsCollection(ctx, doc.subscription, id, 'past_due'));
      }
      case 'processing_timeout': {
        // The customer never completed the payment (redirect abandoned, voucher unpaid): recorded as
        // not completed, like the gateway's notification would; the collection can be paid again.
        const { state } = await this.executor.load(collectionDecider, stream);
        const charge = state.transactions.find((tx) => tx.status === 'pending')?.charges.find((c) => c.status === 'pending');
        if (!charge) return null;
        const result = await this.payments.record(ctx, id, charge.id, {
          status: 'failed',
          gateway_reference: null,
          failure_code: 'payment_not_completed',
          failure_message: 'The customer did not complete the payment in time.',
          decline_code: null,
          retryable: false,
        });
        return result.position;
      }
      case 'dunning': {
        const { state } = await this.executor.load(collectionDecider, stream);
        const f = state.fields!;
        const spent = f.dunning_step >= f.retry_schedule.retry_days.length;
        if (f.collection_method === 'charge' && !spent) {
          const resolved = await this.retrySource(ctx, f.subscription, f.customer, f.payment_method);
          if ('source' in resolved) {
            const result = await this.ignoreRaces(() => this.payments.attempt(ctx, id, resolved.source, 'automatic', f.collection_attempts));
            return result?.position ?? null;
          }
          // Nothing to charge: the retry fails at its time with its reason, and the customer is reminded.
          return this.ignoreRaces(() => this.payments.recordUnattemptable(ctx, id, resolved.failure, f.collection_attempts));
        }
        const advanced = await this.executor.execute(collectionDecider, stream, (now) => ({ type: 'AdvanceDunning' as const, owner: ctx, collectionId: id, now, canRetry: false }), ctx);
        const events = advanced.events as unknown as CollectionEvent[];
        if (doc.subscription && events.some((e) => e.type === 'collection.uncollectible')) {
          return laterPosition(advanced.position, await this.subscriptionFollowsCollection(ctx, doc.subscription, id, 'uncollectible'));
        }
        return advanced.position;
      }
      default:
        return null;
    }
  }

  /**
   * A renewal's (or a scheduled start's) collection: made, and attempted when the subscription
   * charges. `renewed`: the subscription's state as the renewal just left it (not read again).
   */
  private async billCollection(ctx: CommandContext, subscriptionId: string, collectionId: string, renewed?: SubscriptionState, minted = false): Promise<string | null> {
    const state = renewed ?? (await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId))).state;
    const sub = state.fields!;
    const reason = sub.collections_count === 1 && !sub.migrated && !state.trialCollection ? 'subscription_create' : 'subscription_cycle';
    // One unit of work: the new collection and its attempt are one commit, made before the gateway is called.
    const unit = await this.executor.unitOfWork(ctx, async () => {
      // `minted`: the renewal just decided under an id minted by this run (never a `sync`'s id, which may exist).
      const created = await this.billing.createCollection(ctx, subscriptionId, sub, collectionId, reason, [], null, undefined, minted);
      const attempted = await this.ignoreRaces(() => this.billing.attempt(ctx, sub, collectionId, null, true));
      return laterPosition(created, attempted ?? null);
    });
    return laterPosition(unit.result, unit.position);
  }

  /** The subscription catches up with its latest collection (normally done inline; this is the recovery). */
  private async sync(ctx: CommandContext, doc: SubscriptionDoc): Promise<string | null> {
    const collectionId = doc.latest_collection!;
    if (!doc._latest_status) return this.billCollection(ctx, doc.id, collectionId);
    if (doc._latest_status === 'paid') return this.payments.followUpPaid(ctx, collectionId);
    return this.subscriptionFollowsCollection(ctx, doc.id, collectionId, doc._latest_status as 'past_due' | 'uncollectible');
  }

  private async subscriptionFollowsCollection(ctx: CommandContext, subscriptionId: string, collectionId: string, status: 'past_due' | 'uncollectible'): Promise<string | null> {
    const type = status === 'past_due' ? ('MarkSubscriptionPastDue' as const) : ('MarkSubscriptionUnpaid' as const);
    const { position } = await this.executor.execute(subscriptionDecider, subscriptionStream(subscriptionId), (now) => ({ type, owner: ctx, subscriptionId, collectionId, now }), ctx);
    return position;
  }

  /**
   * What a retry charges: the subscription's current method (it may have been changed), else the one
   * last used; when that cannot be charged, the customer's default (a new card brings it back).
   */
  private async retrySource(ctx: CommandContext, subscriptionId: string | null, customerId: string, lastUsed: string | null) {
    let method = lastUsed;
    if (subscriptionId) {
      const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId));
      method = state.fields?.payment_method ?? method;
    }
    return this.billing.automaticSource(ctx, customerId, method);
  }

  private async ignoreRaces<T>(run: () => Promise<T>, anyDomainError = false): Promise<T | null> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof DomainError && (anyDomainError || RACES.has(error.code))) return null;
      throw error;
    }
  }
}
