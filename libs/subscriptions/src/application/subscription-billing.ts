import { Inject, Injectable } from '@nestjs/common';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { CollectionLines } from '#collections/application/collection-lines.js';
import { CollectionPayments, type KnownAttempt } from '#collections/application/collection-payments.js';
import { PaymentFollowUps } from '#collections/application/payment-follow-ups.js';
import { collectionCheckoutUrl } from '#collections/application/create-collection.js';
import { type CollectionPaid, type PaymentSource, collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import type { LineInput } from '#collections/domain/pricing.js';
import { newId } from '#shared/ids.js';
import { AccountRetryPolicy } from '#accounts/application/account-retry-policy.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import { isTokenizable } from '#payments/domain/gateways.js';
import { type SubscriptionFields, discountsForNextCollection } from '../domain/subscription.decider.js';

/** A collection decided by checkCollection (not written): its id and the command that creates it. */
export interface CheckedCollection {
  collectionId: string;
  command: (at: Date) => Parameters<typeof collectionDecider.decide>[0];
}

/** The subscription's shipping charge as a collection line (a one-time, standard "price" of its own). */
function shippingLine(sub: SubscriptionFields, id: string): LineInput {
  const item = sub.shipping_item!;
  return {
    id,
    quantity: 1,
    rate: null,
    product: { id: 'shipping', object: 'shipping', name: item.description },
    price: {
      id: 'shipping',
      object: 'shipping',
      product_id: 'shipping',
      type: 'one_time',
      pricing_model: 'standard',
      currency: sub.currency,
      unit_price: item.amount,
      billing_period: null,
      billing_interval: null,
      pricing_tiers: null,
      ntp_pricing: null,
      active: true,
      meta_data: {},
    },
  };
}


/**
 * A subscription's collections: build one from the subscription's items (recurring items at 0 during
 * a trial), its discounts still in force and today's exchange rates; then, for `charge`, attempt it
 * with the subscription's method. `collect` collections are sent by the collection itself.
 */
@Injectable()
export class SubscriptionBilling {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly payments: CollectionPayments,
    private readonly sources: ResolvePaymentSource,
    private readonly retryPolicy: AccountRetryPolicy,
    private readonly followUps: PaymentFollowUps,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /**
   * Creates collection `collectionId` for the subscription; idempotent (an existing collection is left
   * alone). `reason`: `subscription_create`, `subscription_trial` (recurring items at 0) or
   * `subscription_cycle` (a renewal: a `charge` one is due at once, its attempt being its due date).
   */
  async createCollection(
    ctx: CommandContext,
    subscriptionId: string,
    sub: SubscriptionFields,
    collectionId: string,
    reason: string,
    extraLines: LineInput[] = [],
    checked: CheckedCollection | null = null,
    invoicing?: 'none',
    minted = false,
  ): Promise<string | null> {
    // A collection checked by this request under an id it minted (checkCollection), or an id the
    // caller says it minted just now (`minted`: a renewal's), cannot exist yet, unless ids come from
    // an Idempotency-Key (a resumed run may have written it).
    const fresh = (minted || checked?.collectionId === collectionId) && !ctx.idempotencyKey;
    if (!fresh && (await this.executor.load(collectionDecider, collectionStream(collectionId))).state.exists) return null;
    const command = checked?.collectionId === collectionId ? checked.command : await this.collectionCommand(ctx, subscriptionId, sub, collectionId, reason, extraLines, invoicing);
    const { position } = await this.executor.execute(collectionDecider, collectionStream(collectionId), command, ctx, { newStream: fresh });
    return laterPosition(position, await this.followUps.collectionCreated(ctx, collectionId));
  }

  /**
   * Decides the collection `createCollection` would create, writing nothing: throws its rejection
   * (a missing exchange rate, a rule of the collection) so that a caller can refuse a whole request
   * before its first append. What it returns, handed to createCollection, spares it building the
   * same command again (its lines, rates, retry policy and customer).
   */
  async checkCollection(ctx: CommandContext, subscriptionId: string, sub: SubscriptionFields, collectionId: string, reason: string, extraLines: LineInput[] = [], invoicing?: 'none'): Promise<CheckedCollection> {
    const command = await this.collectionCommand(ctx, subscriptionId, sub, collectionId, reason, extraLines, invoicing);
    collectionDecider.decide(command(this.executor.now(ctx)), collectionDecider.initialState);
    return { collectionId, command };
  }

  /**
   * `extraLines`: one-time lines of this collection only (a checkout's shipping charge on the first
   * one); `invoicing: 'none'`: this collection gets no fiscal invoice (a checkout session's
   * `invoicing.enabled: false` on the first one).
   */
  private async collectionCommand(ctx: CommandContext, subscriptionId: string, sub: SubscriptionFields, collectionId: string, reason: string, extraLines: LineInput[] = [], invoicing?: 'none') {
    const trial = reason === 'subscription_trial';
    const retrySchedule = await this.retryPolicy.policy(ctx.accountId);
    const customer = await this.executor.load(customerDecider, customerStream(sub.customer));
    const now = this.executor.now(ctx);
    const lines = await this.lines.fromSnapshots(sub.items, sub.currency, now, (item) => trial && item.price.type === 'recurring');
    if (sub.shipping_item) lines.push(shippingLine(sub, newId('si')));
    lines.push(...extraLines);
    return (at: Date) => ({
        type: 'CreateCollection' as const,
        owner: ctx,
        collectionId,
        input: {
          customer: { id: sub.customer, billing_address: customer.state.fields?.billing_address ?? null },
          subscription: subscriptionId,
          currency: sub.currency,
          lines,
          // `sub` already counts this collection (it is cycle `collections_count`): the discounts in
          // force are those of that cycle, not of the one after it.
          discounts: discountsForNextCollection({ ...sub, collections_count: sub.collections_count - 1 }, trial).map(({ id, code, amount, percent }) => ({ id, code, amount, percent })),
          collection_method: sub.collection_method,
          days_until_due: sub.days_until_due,
          description: null,
          meta_data: sub.meta_data,
          invoice_settings: sub.invoice_settings,
          invoice_retentions: { reteica: sub.invoice_retentions.reteica ?? null, retefte: sub.invoice_retentions.retefte ?? null },
          collection_rule_id: null,
          billing_reason: reason,
          checkout_url: collectionCheckoutUrl(this.config, collectionId),
          test_clock: sub.test_clock ?? null,
          retry_schedule: retrySchedule,
          due_immediately: reason === 'subscription_cycle' && sub.collection_method === 'charge',
          ...(invoicing ? { invoicing } : {}),
        },
        now: at,
      });
  }

  /**
   * Attempts a `charge` subscription's collection with `source` (one-off data given at creation) or
   * the subscription's stored method. A collection that is already paid (total 0) is reported to the
   * subscription instead. Declines are recorded on the collection, not thrown.
   */
  async attempt(ctx: CommandContext, sub: SubscriptionFields, collectionId: string, source: PaymentSource | null, automatic = false, known?: KnownAttempt): Promise<string | null> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    const f = state.fields!;
    if (f.status === 'paid') {
      const { history } = await this.executor.loadHistory(collectionDecider, collectionStream(collectionId));
      const paid = history.find((e) => e.type === 'collection.paid');
      if (!paid) return null;
      const data = paid.data as unknown as CollectionPaid['data'];
      // Nothing was charged (a trial's 0 total), yet one-off card or wallet data was given: it is saved
      // all the same and becomes the subscription's method, so the first real collection charges it.
      if (source?.token && isTokenizable(source.type)) {
        const kept = { ...data, payment_method: source.payment_method, saved_payment_method: source.save_as?.payment_method_id ?? null, payment_method_type: source.type };
        return this.payments.afterPaid(ctx, state, kept, source);
      }
      return this.payments.afterPaid(ctx, state, data, null);
    }
    if (sub.collection_method !== 'charge' || f.status !== 'pending') return null;
    if (automatic && !source) {
      // A renewal's attempt (the scheduler's): it is made at its time whatever the method's state; one
      // that cannot reach a gateway is a failed attempt all the same (the collection then goes past due).
      const resolved = await this.automaticSource(ctx, sub.customer, sub.payment_method);
      if ('failure' in resolved) return this.payments.recordUnattemptable(ctx, collectionId, resolved.failure, f.collection_attempts);
      const result = await this.payments.attempt(ctx, collectionId, resolved.source, 'automatic', f.collection_attempts);
      return laterPosition(null, result.position);
    }
    const chosen = source ?? (sub.payment_method ? await this.sources.stored(ctx, sub.customer, sub.payment_method) : null);
    if (!chosen) return null;
    const result = await this.payments.attempt(ctx, collectionId, chosen, 'automatic', f.collection_attempts, known);
    return laterPosition(null, result.position);
  }

  /** What an automatic attempt charges: the subscription's method, else the customer's default (Stripe's order); or why nothing can be. */
  async automaticSource(ctx: CommandContext, customerId: string, subscriptionMethod: string | null | undefined) {
    const customer = await this.executor.load(customerDecider, customerStream(customerId));
    return this.sources.automatic(ctx, customerId, [subscriptionMethod, customer.state.fields?.default_payment_method], this.executor.now(ctx));
  }
}
