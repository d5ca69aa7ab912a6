import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { laterPosition } from '#event-store/positions.js';
import { AccountRetryPolicy } from '#accounts/application/account-retry-policy.js';
import { Decimal } from 'decimal.js';
import { CollectionPayments, type KnownAttempt } from '#collections/application/collection-payments.js';
import { PAYMENT_GATEWAY, type ChargeOutcome, type PaymentGateway } from '#payments/gateways/payment-gateway.port.js';
import { collectionCheckoutUrl } from '#collections/application/create-collection.js';
import { CHECKOUT_INVOICE_SETTINGS, type CollectionPaymentFailed, type InvoiceSettings, type PaymentSource, collectionDecider, collectionStream } from '#collections/domain/collection.decider.js';
import { CouponRedemptions } from '#coupons/application/coupon-redemptions.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import { SavePaymentMethod } from '#payments/application/save-payment-method.js';
import { isTokenizable } from '#payments/domain/gateways.js';
import { paymentMethodDecider, paymentMethodStream } from '#payments/domain/payment-method.decider.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { ownedBy } from '#shared/owner.js';
import { CreateSubscriptionCommand } from '#subscriptions/application/create-subscription.js';
import { UpdateSubscriptionCommand } from '#subscriptions/application/update-subscription.js';
import { subscriptionDecider, subscriptionStream } from '#subscriptions/domain/subscription.decider.js';
import {
  type AttemptPlan,
  type CheckoutSessionFields,
  type CheckoutSessionState,
  type DetailsInput,
  type PaymentOutcome,
  type SessionAttempt,
  STALE_PAYMENT_MS,
  attemptUnanswered,
  attemptUnfinished,
  payableAfterRefusal,
  checkoutSessionDecider,
  checkoutSessionStream,
  shippingLine,
} from '../domain/checkout-session.decider.js';
import { onSession } from './checkout-session-command.js';
import { paymentLinkDecider, paymentLinkStream } from '../domain/payment-link.decider.js';
import type { PayInput } from './hosted-checkout.js';

/** What the session's payment ended as, and the position of the last event it (and its follow-ups) wrote. */
export interface PayResult {
  outcome: PaymentOutcome;
  position: string | null;
}

/**
 * The customer pays a checkout session (or, in setup mode, saves a method) — the gateway first, then
 * the spec's order:
 *  1. everything is checked without writing (the session's rules, the card data tokenized by the gateway);
 *  2. the session's coupons and its link's use are reserved (once per session, whichever tab);
 *  3. the attempt is recorded on the session (`checkout_payment.started` / `.retried`, internal) with
 *     its expected revision — of two tabs paying at once one starts, the other is refused
 *     (`payment_in_progress`) — and with everything it will use: the ids of the subscription or
 *     collection it makes, of the collection's transaction and charge, and the source (a token, never
 *     card data), so the attempt is on disk before the gateway is called;
 *  4. the gateway is asked, with the charge id as its idempotency key (a retryable technical failure
 *     gets a second charge id, recorded on the session first);
 *  5. approved (or awaiting the customer's bank or transfer): `checkout_session.completed` first,
 *     then the subscription (`subscription.created`, `collection.created`) or the collection is made
 *     and the attempt recorded on it with the same ids and the gateway's answer (`charge.paid`,
 *     `collection.paid`, `subscription.activated`), and the session notes it finished; declined:
 *     only the session records it (`checkout_session.payment_failed`), nothing else is made, and it
 *     stays open to be paid again.
 * An attempt whose answer was never recorded (its process stopped after the gateway call), or
 * approved and never made, is resumed before anything else — on the next pay, and by the session's
 * deadline (`resume`) — with the same charge ids: the gateway answers as it did, nothing is charged twice.
 */
@Injectable()
export class PayCheckoutSession {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly commands: CommandBus,
    private readonly sources: ResolvePaymentSource,
    private readonly payments: CollectionPayments,
    private readonly savePaymentMethod: SavePaymentMethod,
    private readonly coupons: CouponRedemptions,
    private readonly retryPolicy: AccountRetryPolicy,
    @Inject(PAYMENT_GATEWAY) private readonly gateway: PaymentGateway,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async pay(ctx: CommandContext, sessionId: string, input: PayInput, details: DetailsInput): Promise<PayResult> {
    let { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId));
    if (!ownedBy(state, ctx)) throw notFound('checkout session', sessionId);
    // An earlier attempt first: one left unanswered by a stopped process (older than a minute; a younger
    // one is another tab's, in flight: refused below), or approved and not made yet.
    let resumed: PayResult | null = null;
    const stale = (s: CheckoutSessionState) => this.executor.now(ctx).getTime() - Date.parse(s.fields!.last_payment?.started_at ?? s.fields!.updated_date) >= STALE_PAYMENT_MS;
    if ((attemptUnanswered(state) && stale(state)) || attemptUnfinished(state)) {
      resumed = await this.resume(ctx, sessionId);
      state = (await this.executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId))).state;
      // It paid the session: that is this payment's answer (nothing is charged again).
      if (resumed && state.fields!.status === 'complete') return resumed;
    }
    const f = state.fields!;
    if (input.payment_information && input.payment_method) throw invalidParam('payment_information', 'payment_method and payment_information are mutually exclusive; send only one');
    if (!input.payment_information && !input.payment_method) throw missingParam('payment_information', 'Choose a payment method');
    const method = await this.methodOf(ctx, input);
    if (payableAfterRefusal(f) && this.executor.now(ctx).getTime() < Date.parse(f.expires_at)) return this.payAgainAfterRefusal(ctx, sessionId, f, input);
    // The session stays open until paid: its first attempt, or another after a decline.
    const paid = !f.last_payment ? await this.first(ctx, sessionId, state, input, method, details) : await this.retry(ctx, sessionId, state, input, method);
    return { ...paid, position: laterPosition(resumed?.position ?? null, paid.position) };
  }

  /**
   * Finishes the session's attempt if it was left unfinished: an attempt without a recorded answer
   * is asked of the gateway again with its charge ids (the same answer) and the answer recorded; an
   * approved one's subscription or collection is made. Idempotent; null when there was nothing to do.
   */
  async resume(ctx: CommandContext, sessionId: string): Promise<PayResult | null> {
    const { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId));
    if (!state.exists || (!attemptUnanswered(state) && !attemptUnfinished(state))) return null;
    if (attemptUnanswered(state)) return this.charge(ctx, sessionId, state, null);
    return this.finish(ctx, sessionId, null, null);
  }

  private async methodOf(ctx: CommandContext, input: PayInput): Promise<{ gateway: string; type: string }> {
    if (input.payment_information) {
      const info = input.payment_information;
      if (typeof info !== 'object' || !info.gateway || !info.type) throw missingParam('payment_information[type]', 'Choose a payment method');
      return { gateway: info.gateway, type: info.type };
    }
    const { state } = await this.executor.load(paymentMethodDecider, paymentMethodStream(input.payment_method!));
    if (!ownedBy(state, ctx)) throw invalidParam('payment_method', `No such payment method: '${input.payment_method}'`);
    return { gateway: state.fields!.gateway, type: state.fields!.type };
  }

  /** The source the attempt charges; one-off card data is tokenized here (and goes no further than the gateway). */
  private source(ctx: CommandContext, customer: string, input: PayInput): Promise<PaymentSource> {
    if (input.payment_method) return this.sources.stored(ctx, customer, input.payment_method);
    return this.sources.oneOff(ctx, input.payment_information!, customer);
  }

  /**
   * A complete session whose asynchronous payment the bank then refused: its collection (made when
   * the session completed) is paid again, one attempt at a time on the collection; an approval marks
   * the session paid before `collection.paid` (CheckoutFollowUps.paymentSucceeding).
   */
  private async payAgainAfterRefusal(ctx: CommandContext, sessionId: string, f: CheckoutSessionFields, input: PayInput): Promise<PayResult> {
    const source = await this.source(ctx, f.customer!, input);
    const result = await this.payments.attempt(ctx, f.collection!, { ...source, checkout_session: sessionId }, 'customer');
    const outcome = await this.outcomeOf(f.subscription, f.collection!, result.failure);
    const recorded = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'RecordPaymentOutcome', owner: ctx, sessionId, outcome, now }));
    return { outcome, position: laterPosition(result.position, recorded.position) };
  }

  /** The ids an attempt will use, its source (naming the session) and the amount the customer was shown. */
  private plan(sessionId: string, f: CheckoutSessionFields, source: PaymentSource): AttemptPlan | null {
    if (f.mode === 'setup') return null;
    return {
      subscription: f.mode === 'subscription' ? newId('sub') : null,
      collection: newId('col'),
      transaction: newId('tx'),
      charge: newId('ch'),
      source: { ...source, checkout_session: sessionId },
      amount: f.total,
    };
  }

  private async first(ctx: CommandContext, sessionId: string, state: CheckoutSessionState, input: PayInput, method: { gateway: string; type: string }, details: DetailsInput): Promise<PayResult> {
    const f = state.fields!;
    // Every rule first, nothing written: a refused payment leaves the session open.
    const probe = { type: 'StartCheckoutPayment' as const, owner: ctx, sessionId, details, method, attempt: null, now: this.executor.now(ctx) };
    const decided = checkoutSessionDecider.decide(probe, state);
    const after = decided.reduce((s, e) => checkoutSessionDecider.evolve(s, e), state).fields!;
    const source = await this.source(ctx, after.customer!, input);
    if (f.mode === 'setup' && !isTokenizable(source.type)) throw invalidParam('payment_information', 'mode setup saves a card or a wallet');
    const attempt = this.plan(sessionId, after, source);
    const start = (now: Date) => ({ ...probe, attempt, now });
    // A link's use and the coupons' redemptions are reserved once per session (whichever tab), exactly under
    // concurrency; they count when the session is paid and are given back if it ends unpaid (session-holds.ts).
    if (f.payment_link) {
      const linkId = f.payment_link;
      await this.executor.execute(paymentLinkDecider, paymentLinkStream(linkId), (now) => ({ type: 'ReservePaymentLinkUse' as const, owner: ctx, linkId, sessionId, now }), ctx);
    }
    let position: string | null = null;
    let started;
    try {
      position = await this.coupons.reserve(ctx, f.discounts, sessionId, f.currency, 'discounts');
      started = await onSession(this.executor, ctx, sessionId, start);
    } catch (error) {
      // Another tab completed it first: it holds the attempt (and the use and redemptions).
      if (error instanceof DomainError && (error.code === 'checkout_session_complete' || error.code === 'payment_in_progress')) throw new DomainError('payment_in_progress', 'This checkout is being paid in another window', null, 409);
      await this.coupons.releaseReservations(ctx, f.discounts.flatMap((d) => (d.coupon ? [d.coupon] : [])), sessionId);
      if (f.payment_link) {
        const linkId = f.payment_link;
        await this.executor.execute(paymentLinkDecider, paymentLinkStream(linkId), (now) => ({ type: 'ReleasePaymentLinkUse' as const, owner: ctx, linkId, sessionId, now }), ctx).catch(() => undefined);
      }
      throw error;
    }
    position = laterPosition(position, started.position);
    return this.run(ctx, sessionId, started.state, source, position);
  }

  private async retry(ctx: CommandContext, sessionId: string, state: CheckoutSessionState, input: PayInput, method: { gateway: string; type: string }): Promise<PayResult> {
    const f = state.fields!;
    checkoutSessionDecider.decide({ type: 'StartPaymentRetry', owner: ctx, sessionId, method, attempt: null, now: this.executor.now(ctx) }, state);
    const source = await this.source(ctx, f.customer!, input);
    const attempt = this.plan(sessionId, f, source);
    const started = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'StartPaymentRetry', owner: ctx, sessionId, method, attempt, now }));
    return this.run(ctx, sessionId, started.state, source, started.position);
  }

  /** Setup saves the method; a payment asks the gateway, then makes what the session sells if approved. */
  private async run(ctx: CommandContext, sessionId: string, state: CheckoutSessionState, source: PaymentSource, position: string | null): Promise<PayResult> {
    const f = state.fields!;
    if (f.mode !== 'setup') {
      const charged = await this.charge(ctx, sessionId, state, position);
      return charged;
    }
    let made: PayResult;
    try {
      made = await this.setup(ctx, f, source);
    } catch (error) {
      // Nothing was saved (a refusal): the session may be submitted again.
      const message = error instanceof Error ? error.message : 'The payment method could not be saved';
      const code = error instanceof DomainError ? error.code : 'processing_error';
      const failed: PaymentOutcome = { status: 'declined', collection: null, subscription: f.setup_subscription_id, payment_method: null, message, failure_code: code, decline_code: null, additional_data: null };
      await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'RecordPaymentOutcome', owner: ctx, sessionId, outcome: failed, now }));
      throw error;
    }
    const recorded = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'RecordPaymentOutcome', owner: ctx, sessionId, outcome: made.outcome, now }));
    return { outcome: made.outcome, position: laterPosition(laterPosition(position, made.position), recorded.position) };
  }

  /**
   * Asks the gateway for the session's attempt (each of its recorded charge ids, the same answer for
   * the same id; a retryable technical failure gets one more charge, recorded on the session before
   * it is made) and records the answer on the session; approved or processing, makes what it pays for.
   */
  private async charge(ctx: CommandContext, sessionId: string, state: CheckoutSessionState, position: string | null): Promise<PayResult> {
    const f = state.fields!;
    let a = state.attempt!;
    const answers: Array<{ id: string; outcome: ChargeOutcome | null }> = [];
    let outcome: ChargeOutcome | null = null;
    if (new Decimal(a.amount).isZero()) {
      // Nothing to charge (a free trial's first collection): approved without asking the gateway.
      outcome = { status: 'succeeded', gateway_reference: 'none' };
    } else {
      for (let i = 0; ; i++) {
        if (i >= a.charges.length) {
          const chargeId = newId('ch');
          const retried = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'RetryAttemptCharge', owner: ctx, sessionId, chargeId, now }));
          position = laterPosition(position, retried.position);
          a = retried.state.attempt!;
        }
        const charge = a.charges[i];
        outcome = await this.gateway.charge({
          idempotencyKey: charge.id,
          tryNumber: charge.try,
          accountId: ctx.accountId,
          mode: ctx.mode,
          gateway: a.source.gateway,
          method: a.source.type,
          token: a.source.token,
          details: a.source.details,
          amount: a.amount,
          currency: f.currency,
          description: `Collection ${a.collection}`,
        });
        answers.push({ id: charge.id, outcome });
        if (!(outcome.status === 'failed' && outcome.retryable && charge.try < 2)) break;
      }
    }
    const paymentMethod = a.source.save_as?.payment_method_id ?? a.source.payment_method ?? null;
    const answered: PaymentOutcome =
      outcome!.status === 'succeeded'
        ? { status: 'paid', collection: a.collection, subscription: a.subscription, payment_method: paymentMethod, message: null, failure_code: null, decline_code: null, additional_data: null }
        : outcome!.status === 'pending'
          ? { status: 'processing', collection: a.collection, subscription: a.subscription, payment_method: paymentMethod, message: null, failure_code: null, decline_code: null, additional_data: outcome!.additional_data }
          : { status: 'declined', collection: null, subscription: null, payment_method: null, message: outcome!.failure_message, failure_code: outcome!.failure_code, decline_code: outcome!.decline_code, additional_data: null };
    const recorded = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'RecordPaymentOutcome', owner: ctx, sessionId, outcome: answered, now }));
    position = laterPosition(position, recorded.position);
    if (answered.status === 'declined') return { outcome: answered, position };
    return this.finish(ctx, sessionId, answers.length > 0 ? answers : null, position);
  }

  /**
   * Makes what an approved (or processing) attempt pays for, with the attempt's ids: the subscription
   * (its first collection, the charge recorded with the gateway's answer) or the collection; then the
   * session notes it finished. `answers`: the gateway's answers when this process has them (else the
   * collection asks the gateway again with the same charge ids).
   */
  private async finish(ctx: CommandContext, sessionId: string, answers: Array<{ id: string; outcome: ChargeOutcome | null }> | null, position: string | null): Promise<PayResult> {
    const { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(sessionId));
    const a = state.attempt!;
    const f = state.fields!;
    const known: KnownAttempt = { transactionId: a.transaction, charges: answers ?? a.charges.map((c) => ({ id: c.id, outcome: null })) };
    const made = f.mode === 'subscription' ? await this.subscription(ctx, sessionId, f, state, a, known) : await this.payment(ctx, sessionId, f, state, a, known);
    const finished = await onSession(this.executor, ctx, sessionId, (now) => ({ type: 'FinishAttempt', owner: ctx, sessionId, now }));
    // What the attempt wrote, its follow-ups included (the invoice's payment, the subscription's
    // activation): the answer waits for the last of it.
    return { outcome: made.outcome, position: laterPosition(laterPosition(position, made.position), finished.position) };
  }

  private async subscription(ctx: CommandContext, sessionId: string, f: CheckoutSessionFields, state: CheckoutSessionState, a: SessionAttempt, known: KnownAttempt): Promise<PayResult> {
    const subscriptionId = a.subscription!;
    const source = a.source;
    const existing = await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId));
    if (!existing.state.exists) {
      const body = {
        customer: f.customer!,
        collection_method: 'charge' as const,
        items: state.lines.map((l) => ({ price: l.price.id, quantity: l.quantity, ...(l.price.pricing_model === 'ntp' ? { amount: l.amount ?? undefined } : {}) })),
        currency: f.currency,
        ...(source.payment_method && !source.save_as ? { payment_method: source.payment_method } : { payment_information: { gateway: source.gateway, type: source.type } }),
        ...(f.discounts.length > 0 ? { discounts: f.discounts.map((d) => ({ code: d.code, amount: d.amount, percent: d.percent, duration_in_collections: d.duration_in_collections })) } : {}),
        ...(f.subscription_settings?.trial_days ? { trial_days: f.subscription_settings.trial_days } : {}),
        ...(f.subscription_settings?.duration ? { duration: f.subscription_settings.duration } : {}),
        ...(f.subscription_settings?.commitment_periods ? { commitment_periods: f.subscription_settings.commitment_periods } : {}),
        ...(f.invoicing ? { invoice_settings: sessionInvoiceSettings(f) } : {}),
        meta_data: f.meta_data,
      };
      // The shipping charge is billed once, on the first collection (as Stripe bills it on the first invoice).
      const firstCollectionLines = f.shipping_cost && f.shipping_amount ? [{ ...shippingLine(f.shipping_amount, f.currency), id: newId('si') }] : [];
      // `invoicing.enabled: false` switches off the first collection's fiscal invoice (renewals follow the subscription's `renewal_invoicing`).
      const firstCollectionInvoicing = f.invoicing && !f.invoicing.enabled ? ('none' as const) : undefined;
      // Its first-payment window is the session's `expires_at`: while the session is open it can be paid.
      const session = { id: sessionId, expires_at: f.expires_at };
      const created: CommandResult = await this.commands.execute(
        new CreateSubscriptionCommand(ctx, body as never, false, { subscriptionId, source, firstCollectionLines, firstCollectionInvoicing, session, firstCollectionId: a.collection!, attempt: known }),
      );
      const latest = (await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId))).state.fields!.latest_collection!;
      return { outcome: await this.outcomeOf(subscriptionId, latest), position: created.position };
    }
    // Made by an earlier run of this attempt: what is missing of its charge is recorded.
    const collectionId = existing.state.fields!.latest_collection!;
    const result = await this.payments.attempt(ctx, collectionId, source, 'automatic', undefined, known);
    return { outcome: await this.outcomeOf(subscriptionId, collectionId, result.failure), position: result.position };
  }

  private async payment(ctx: CommandContext, sessionId: string, f: CheckoutSessionFields, state: CheckoutSessionState, a: SessionAttempt, known: KnownAttempt): Promise<PayResult> {
    const collectionId = a.collection!;
    const source = a.source;
    const existing = await this.executor.load(collectionDecider, collectionStream(collectionId));
    if (!existing.state.exists) {
      const customer = await this.executor.load(customerDecider, customerStream(f.customer!));
      const lines = [...state.lines];
      if (f.shipping_cost && f.shipping_amount) lines.push({ ...shippingLine(f.shipping_amount, f.currency), id: newId('si') });
      const retrySchedule = await this.retryPolicy.policy(ctx.accountId);
      await this.executor.execute(
        collectionDecider,
        collectionStream(collectionId),
        (now) => ({
          type: 'CreateCollection' as const,
          owner: ctx,
          collectionId,
          input: {
            customer: { id: f.customer!, billing_address: customer.state.fields?.billing_address ?? null },
            subscription: null,
            currency: f.currency,
            lines,
            discounts: f.discounts.map(({ id, code, amount, percent }) => ({ id, code, amount, percent })),
            collection_method: 'charge' as const,
            days_until_due: null,
            description: f.description,
            meta_data: { ...f.meta_data, checkout_session: sessionId },
            invoice_settings: sessionInvoiceSettings(f),
            // The session's `invoicing.enabled`: the collection's fiscal invoice is issued after payment
            // (a charged collection allows only `after`) by the invoicing context's collection listeners,
            // the path subscriptions' collections take; nothing when the account's invoicing is off.
            invoicing: f.invoicing?.enabled ? ('after' as const) : null,
            invoice_retentions: { reteica: null, retefte: null },
            collection_rule_id: null,
            billing_reason: 'checkout',
            checkout_url: collectionCheckoutUrl(this.config, collectionId),
            test_clock: f.test_clock,
            retry_schedule: retrySchedule,
          },
          now,
        }),
        ctx,
      );
    }
    const result = await this.payments.attempt(ctx, collectionId, source, 'customer', undefined, known);
    return { outcome: await this.outcomeOf(null, collectionId, result.failure), position: result.position };
  }

  /** Saves the method; with `setup_subscription_id` it becomes the subscription's, and a past_due / unpaid one is retried with it. */
  private async setup(ctx: CommandContext, f: CheckoutSessionFields, source: PaymentSource): Promise<PayResult> {
    let paymentMethod = source.payment_method;
    let position: string | null = null;
    if (source.save_as) {
      position = await this.savePaymentMethod.afterPayment(ctx, f.customer!, source);
      paymentMethod = source.save_as.payment_method_id;
    }
    const extra: Record<string, unknown> = {};
    let collection: string | null = null;
    if (f.setup_subscription_id && paymentMethod) {
      const subId = f.setup_subscription_id;
      const updated: CommandResult = await this.commands.execute(new UpdateSubscriptionCommand(ctx, subId, { payment_method: paymentMethod }));
      position = laterPosition(position, updated.position);
      const sub = (await this.executor.load(subscriptionDecider, subscriptionStream(subId))).state.fields!;
      if ((sub.status === 'past_due' || sub.status === 'unpaid') && sub.latest_collection) {
        collection = sub.latest_collection;
        const col = (await this.executor.load(collectionDecider, collectionStream(collection))).state.fields!;
        if (['pending', 'past_due', 'uncollectible'].includes(col.status)) {
          const stored = await this.sources.stored(ctx, f.customer!, paymentMethod);
          const result = await this.payments.attempt(ctx, collection, stored, 'customer');
          position = laterPosition(position, result.position);
          extra.recovery = result.outcome;
          if (result.failure) extra.recovery_message = result.failure.failure_message;
        }
      }
    }
    const outcome: PaymentOutcome = { status: 'saved', collection, subscription: f.setup_subscription_id, payment_method: paymentMethod, message: null, failure_code: null, decline_code: null, additional_data: Object.keys(extra).length ? extra : null };
    return { outcome, position };
  }

  /** What the session's collection says now: paid, processing (with its redirect or voucher), or declined (with the reason). */
  private async outcomeOf(subscription: string | null, collectionId: string, failure?: CollectionPaymentFailed['data'] | null): Promise<PaymentOutcome> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    const c = state.fields!;
    const base = { collection: collectionId, subscription, payment_method: c.payment_method ?? null, message: null, failure_code: null, decline_code: null, additional_data: null };
    if (c.status === 'paid') return { ...base, status: 'paid' };
    if (c.status === 'processing') return { ...base, status: 'processing', additional_data: c.additional_data };
    const history = failure ? [] : (await this.executor.loadHistory(collectionDecider, collectionStream(collectionId))).history;
    const last = failure ?? ([...history].reverse().find((e) => e.type === 'collection.payment_failed')?.data as CollectionPaymentFailed['data'] | undefined);
    return { ...base, status: 'declined', message: last?.failure_message ?? 'The payment was not completed', failure_code: last?.failure_code ?? 'payment_failed', decline_code: last?.decline_code ?? null };
  }
}

/**
 * The invoice settings a session gives its collection (or subscription): the spec's two collection
 * keys always, and the session's further provider parameters (`invoice_payment_method_credit`,
 * `invoice_vendor`, `invoice_autoretention_tax_id`) when it set them; they reach the fiscal invoice.
 */
function sessionInvoiceSettings(f: CheckoutSessionFields): InvoiceSettings {
  const given = f.invoicing?.invoice_settings;
  const out: InvoiceSettings = { invoice_document_id: given?.invoice_document_id ?? null, invoice_cost_center: given?.invoice_cost_center ?? null };
  for (const k of CHECKOUT_INVOICE_SETTINGS) if (given?.[k]) out[k] = given[k];
  return out;
}
