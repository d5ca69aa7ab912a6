import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { ResolvePaymentSource } from '#payments/application/resolve-payment-source.js';
import type { PaymentInformation } from '#payments/gateways/payment-gateway.port.js';
import type { PaymentSource } from '#collections/domain/collection.decider.js';
import type { KnownAttempt } from '#collections/application/collection-payments.js';
import type { LineInput } from '#collections/domain/pricing.js';
import { type SubscriptionInput, subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';
import { CouponRedemptions } from '#coupons/application/coupon-redemptions.js';
import { type CheckedCollection, SubscriptionBilling } from './subscription-billing.js';
import { type ItemRequest, SubscriptionInputs } from './subscription-inputs.js';

export type CreateSubscriptionBody = Omit<SubscriptionInput, 'items' | 'payment_information'> & {
  items: ItemRequest[];
  payment_information?: PaymentInformation;
};

export class CreateSubscriptionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: CreateSubscriptionBody,
    /** `POST /v1/subscriptions/migrate`: no collection, no payment, `next_renewal_date` honoured. */
    readonly migrate = false,
    /** A hosted checkout: the subscription id it announced, and the payment source it already resolved (tokenized). */
    readonly checkout: {
      subscriptionId: string;
      source: PaymentSource | null;
      firstCollectionLines?: LineInput[];
      /** `none`: the first collection gets no fiscal invoice (the session's `invoicing.enabled: false`). */
      firstCollectionInvoicing?: 'none';
      /** The session and its `expires_at`: the subscription's first-payment window (the session's expiry ends it). */
      session?: { id: string; expires_at: string };
      /** The first collection's id and its attempt, already answered by the gateway (the session asked it first). */
      firstCollectionId?: string;
      attempt?: KnownAttempt;
    } | null = null,
  ) {}
}


/**
 * Creates a subscription, then (unless scheduled or migrated) its first collection, and for `charge`
 * attempts it in the same request: `subscription.created`, `collection.created`, then on approval
 * `charge.paid`, `collection.paid`, `subscription.activated`, in that order.
 */
@CommandHandler(CreateSubscriptionCommand)
export class CreateSubscriptionHandler implements ICommandHandler<CreateSubscriptionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly inputs: SubscriptionInputs,
    private readonly sources: ResolvePaymentSource,
    private readonly billing: SubscriptionBilling,
    private readonly clocks: TestClockTime,
    private readonly coupons: CouponRedemptions,
  ) {}

  async execute({ ctx: request, body, migrate, checkout }: CreateSubscriptionCommand): Promise<CommandResult> {
    const customer = await this.inputs.customer(request, body.customer);
    // A customer on a test clock: the subscription lives on it too, and everything here is decided at its time.
    const ctx = await this.clocks.contextFor(request, customer.test_clock);
    const items = await this.inputs.items(ctx, body.items);
    // The requested method is resolved once: the decider learns whether it is usable, the attempt charges it.
    const requested = await this.sources.storedIfUsable(ctx, body.customer, body.payment_method);
    const paymentMethods = { customerDefault: customer.default_payment_method, requestedUsable: requested !== null };
    const subscriptionId = checkout?.subscriptionId ?? newId('sub');
    const firstCollectionId = checkout?.firstCollectionId ?? newId('col');
    const discountIds = (body.discounts ?? []).map(() => newId('sd'));
    // `discounts: [{code}]` names a coupon: its amount or percent (and duration) come from it, and it is redeemed below.
    const currency = String(body.currency ?? items.find((i) => i.price?.type === 'recurring')?.price?.currency ?? 'COP').toUpperCase();
    const discounts = await this.coupons.resolve(ctx, body.discounts, currency, this.executor.now(ctx));
    const input: SubscriptionInput = {
      ...body,
      ...(body.discounts !== undefined ? { discounts: discounts.map(({ coupon: _, ...d }) => d) } : {}),
      items,
      payment_information: body.payment_information ? { gateway: body.payment_information.gateway, type: body.payment_information.type } : body.payment_information,
      test_clock: customer.test_clock ?? null,
    };
    const command = (now: Date) => ({
      type: 'CreateSubscription' as const,
      owner: ctx,
      subscriptionId,
      firstCollectionId,
      discountIds,
      input,
      paymentMethods,
      migrate,
      checkoutSession: checkout?.session ?? null,
      now,
    });
    // Every rule first (pure, nothing written), then the payment data is checked and tokenized.
    const decided = subscriptionDecider.decide(command(this.executor.now(ctx)), subscriptionDecider.initialState);
    // The first collection is decided too before anything is written (a price with no exchange rate
    // into the subscription's currency refuses the whole request, not only its second half).
    const wouldBe = decided.reduce(subscriptionDecider.evolve, subscriptionDecider.initialState).fields;
    let checked: CheckedCollection | null = null;
    if (wouldBe?.latest_collection) {
      checked = await this.billing.checkCollection(ctx, subscriptionId, wouldBe, wouldBe.latest_collection, wouldBe.status === 'trialing' ? 'subscription_trial' : 'subscription_create', checkout?.firstCollectionLines, checkout?.firstCollectionInvoicing);
    }
    let source: PaymentSource | null = null;
    if ((body.collection_method ?? 'charge') === 'charge') {
      if (checkout?.source) source = checkout.source;
      else if (body.payment_information) source = await this.sources.oneOff(ctx, body.payment_information, body.customer);
      // Falling back to the default: it must still be chargeable on a configured gateway.
      else source = requested ?? (paymentMethods.customerDefault ? await this.sources.stored(ctx, body.customer, paymentMethods.customerDefault, 'payment_method') : null);
    }

    await this.coupons.redeem(ctx, discounts, subscriptionId, currency);
    const release = () => this.coupons.release(ctx, discounts.flatMap((d) => (d.coupon ? [d.coupon] : [])), subscriptionId);
    // One unit of work: the subscription, its first collection and that collection's attempt are
    // decided one after another and appended together (one commit on SQLite) before the gateway is
    // called; what follows the gateway's answer is appended after it. The request waits for the
    // projections once, at the end (WriteThenRead).
    let unit;
    try {
      unit = await this.executor.unitOfWork(ctx, async () => {
        const created = await this.executor.execute(subscriptionDecider, subscriptionStream(subscriptionId), command, ctx, { newStream: !checkout });
        let position = created.position;
        const sub = created.state.fields!;
        if (!sub.latest_collection) return position;
        const reason = sub.status === 'trialing' ? 'subscription_trial' : 'subscription_create';
        position = laterPosition(position, await this.billing.createCollection(ctx, subscriptionId, sub, sub.latest_collection, reason, checkout?.firstCollectionLines, checked, checkout?.firstCollectionInvoicing));
        return laterPosition(position, await this.billing.attempt(ctx, sub, sub.latest_collection, source, false, checkout?.attempt));
      });
    } catch (error) {
      // The subscription was refused, or the unit's first commit failed: none was written, so its coupons are free again.
      if (!(await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId))).state.fields) await release();
      throw error;
    }
    const position = laterPosition(unit.result, unit.position);
    return { id: subscriptionId, position };
  }
}
