import { Injectable, OnModuleInit } from '@nestjs/common';
import { PaymentFollowUps, type CollectionPaidNotice } from '#collections/application/payment-follow-ups.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { ReadModels } from '#platform/read-models.js';
import { Scheduler } from '#scheduling/scheduler.js';
import type { DeadlineDoc } from '#scheduling/deadline-source.js';
import type { CheckoutSessionDoc } from '../read-models/checkout-session.read-model.js';
import { onSession } from './checkout-session-command.js';
import { laterPosition } from '#event-store/positions.js';
import { collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import { type CheckoutPaymentLapsed, type CheckoutSessionExpired, FORGET_BUYER, buyerDataDeadline, checkoutSessionDecider, checkoutSessionStream } from '../domain/checkout-session.decider.js';
import { CustomerKeyring } from '#customers/personal-data/customer-keys.js';
import { scrubSessions } from '#customers/personal-data/read-model-scrub.js';
import { PayCheckoutSession } from './pay-checkout-session.js';

/**
 * What time and payments do to sessions: the `expire` deadline (registered with the scheduler, so
 * test clocks honour it) and a session's collection paid later (an asynchronous method settled, or
 * the collection paid on its own page) marks the session paid.
 */
@Injectable()
export class CheckoutFollowUps implements OnModuleInit {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
    private readonly followUps: PaymentFollowUps,
    private readonly scheduler: Scheduler,
    private readonly payments: PayCheckoutSession,
    private readonly keys: CustomerKeyring,
  ) {}

  onModuleInit(): void {
    this.followUps.register({ collectionPaid: (ctx, notice) => this.collectionPaid(ctx, notice) });
    this.followUps.registerLifecycle({
      paymentFailed: (ctx, collectionId, failure) => this.paymentFailed(ctx, collectionId, failure),
      paymentSucceeding: (ctx, collectionId, chargeId) => this.paymentSucceeding(ctx, collectionId, chargeId),
    });
    this.scheduler.register({ name: 'checkout_session', collection: 'checkout_sessions', run: (ctx, doc) => (doc._due_kind === FORGET_BUYER ? this.forgetBuyer(ctx, doc) : this.expire(ctx, doc)) });
  }

  /**
   * The session's `forget_buyer` deadline (buyerDataDeadline: 30 days after a session never tied to a
   * customer expired): its key is destroyed — what the buyer entered (the e-mail it gave, custom field
   * values, shipping address, the consent's IP address and user agent) can no longer be read by anyone
   * — then `checkout_buyer.forgotten` is recorded (internal: other processes drop the key from memory,
   * the session's document shows the placeholders and its deadline ends), and its feed entries are
   * rewritten as a rebuild would write them. Safe to run again: a forgotten session decides nothing.
   */
  async forgetBuyer(ctx: CommandContext, doc: DeadlineDoc): Promise<string | null> {
    const sessionId = doc.id;
    const { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId));
    const due = state.fields ? buyerDataDeadline(state.fields) : null;
    if (!due || this.executor.now(ctx).getTime() < Date.parse(due.at)) return null;
    await this.keys.erase(sessionId);
    const { position } = await this.executor.execute(checkoutSessionDecider, checkoutSessionStream(sessionId), (now) => ({ type: 'ForgetBuyer' as const, owner: ctx, sessionId, now }), ctx);
    await scrubSessions(this.readModels.store, { account: ctx.accountId, isTest: ctx.mode === 'test' }, [sessionId]);
    return position;
  }

  /**
   * The session's deadline. First, an attempt left unfinished (its gateway answer never recorded, or
   * approved and its subscription or collection never made: the process stopped) is resumed with its
   * charge ids — the gateway answers as it did — so a session that may have been paid is never
   * expired unresolved. Then, `expires_at` passed on an open session (never paid; declined attempts
   * included): `checkout_session.expired` (decided at the deadline's own time). A declined attempt
   * made nothing, so there is nothing to void; a complete session whose asynchronous payment then
   * failed stays complete, and at `expires_at` what it left ends (`checkout_payment.lapsed`,
   * internal): its subscription expires (`subscription.expired`, still `incomplete`) and its
   * collection is voided (`collection.voided`), in that order.
   */
  async expire(ctx: CommandContext, doc: DeadlineDoc): Promise<string | null> {
    const session = doc as unknown as CheckoutSessionDoc;
    const sessionId = doc.id;
    const resumed = await this.payments.resume(ctx, sessionId);
    const expired = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'ExpireCheckoutSession', owner: ctx, sessionId, expected: session.expires_at, now }));
    const event = expired.events.find((e) => e.type === 'checkout_session.expired' || e.type === 'checkout_payment.lapsed') as CheckoutSessionExpired | CheckoutPaymentLapsed | undefined;
    const position = laterPosition(resumed?.position ?? null, expired.position);
    return laterPosition(position, event ? await this.endWhatItLeft(ctx, { subscription: event.data.subscription ?? null, collection: event.data.collection }) : null);
  }

  /** Idempotent: a repeated run decides no events. */
  private async endWhatItLeft(ctx: CommandContext, data: { subscription: string | null; collection: string | null }): Promise<string | null> {
    let position: string | null = null;
    if (data.subscription) {
      const subscriptionId = data.subscription;
      const sub = await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId));
      if (sub.state.exists) {
        const r = await this.executor.execute(subscriptionDecider, subscriptionStream(subscriptionId), (now) => ({ type: 'ExpireSubscription' as const, owner: ctx, subscriptionId, now, checkoutExpired: true }), ctx);
        position = laterPosition(position, r.position);
      }
    }
    if (data.collection) {
      const collectionId = data.collection;
      const col = await this.executor.load(collectionDecider, collectionStream(collectionId));
      if (col.state.exists && ['pending', 'past_due', 'uncollectible'].includes(col.state.fields!.status)) {
        const r = await this.executor.execute(collectionDecider, collectionStream(collectionId), (now) => ({ type: 'VoidCollection' as const, owner: ctx, collectionId, now }), ctx);
        position = laterPosition(position, r.position);
        // Its unpaid fiscal invoice, if one was issued, is voided with it.
        position = laterPosition(position, await this.followUps.collectionVoided(ctx, collectionId));
      }
    }
    return position;
  }

  /**
   * The gateway approved the charge of a session's attempt (the attempt names the session): the
   * session completes (`checkout_session.completed`, `payment_status: paid`) before the charge's
   * outcome is recorded, so the feed reads in the spec's order — completed, then `collection.paid`
   * and `subscription.activated`. Idempotent: a session already complete decides nothing.
   */
  async paymentSucceeding(ctx: CommandContext, collectionId: string, chargeId: string): Promise<string | null> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    const tx = state.transactions.find((t) => t.charges.some((c) => c.id === chargeId));
    const sessionId = tx?.source.checkout_session;
    if (!tx || !sessionId || !state.fields) return null;
    const paymentMethod = tx.source.save_as?.payment_method_id ?? tx.source.payment_method ?? null;
    const { position } = await onSession(this.executor, ctx, sessionId, (now) => ({
      type: 'RecordPaymentOutcome',
      owner: ctx,
      sessionId,
      outcome: { status: 'paid', collection: collectionId, subscription: state.fields!.subscription, payment_method: paymentMethod, message: null, failure_code: null, decline_code: null, additional_data: null },
      now,
    }));
    return position;
  }

  /**
   * An asynchronous payment of a session (pse, a voucher) that the bank refused or that timed out:
   * the session is unpaid again with the reason, and the page offers a retry until `expires_at`.
   */
  async paymentFailed(ctx: CommandContext, collectionId: string, failure: { failure_code: string | null; failure_message: string | null; decline_code: string | null }): Promise<string | null> {
    const [session] = await this.readModels.store.find<CheckoutSessionDoc>('checkout_sessions', {
      where: { _account: ctx.accountId, is_test: ctx.mode === 'test', collection: collectionId },
      orderBy: { field: '_created', direction: 'desc' },
      limit: 1,
    });
    // Only a session waiting for the bank: a decline on the page is recorded by the payment itself.
    if (!session || session.status === 'expired' || session.payment_status !== 'processing') return null;
    const sessionId = session.id;
    const { position } = await onSession(this.executor, ctx, sessionId, (now) => ({
      type: 'RecordPaymentOutcome',
      owner: ctx,
      sessionId,
      outcome: {
        status: 'declined',
        collection: collectionId,
        subscription: session.subscription,
        payment_method: null,
        message: failure.failure_message,
        failure_code: failure.failure_code ?? 'payment_failed',
        decline_code: failure.decline_code,
        additional_data: null,
      },
      now,
    }));
    return position;
  }

  /**
   * A renewal's collection (`subscription_cycle`) is never waiting on a session: its subscription
   * renews only once active, i.e. after its first collection was paid, which marked the session
   * paid for good (inline, or here) — so no session is looked up for it (the billing run pays
   * thousands of them).
   */
  async collectionPaid(ctx: CommandContext, notice: CollectionPaidNotice): Promise<string | null> {
    if (notice.billingReason === 'subscription_cycle') return null;
    const [session] = await this.readModels.store.find<CheckoutSessionDoc>('checkout_sessions', {
      where: { _account: ctx.accountId, is_test: ctx.mode === 'test', collection: notice.collectionId },
      orderBy: { field: '_created', direction: 'desc' },
      limit: 1,
    });
    if (!session || session.payment_status === 'paid' || session.status === 'expired' || session.mode === 'setup') return null;
    const sessionId = session.id;
    const { position } = await onSession(this.executor, ctx, sessionId, (now) => ({
      type: 'RecordPaymentOutcome',
      owner: ctx,
      sessionId,
      outcome: { status: 'paid', collection: notice.collectionId, subscription: notice.subscriptionId, payment_method: notice.paymentMethod, message: null, failure_code: null, decline_code: null, additional_data: null },
      now,
    }));
    return position;
  }
}
