import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { notFound } from '#shared/errors.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type SubscriptionChanges, subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';
import { type ItemRequest, SubscriptionInputs } from './subscription-inputs.js';
import { onSubscription } from './subscription-command.js';
import { CouponRedemptions } from '#coupons/application/coupon-redemptions.js';

export type UpdateSubscriptionBody = Omit<SubscriptionChanges, 'items'> & { items?: ItemRequest[] };

export class UpdateSubscriptionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
    readonly body: UpdateSubscriptionBody,
  ) {}
}

/**
 * Changes items (`{price, quantity}` adds, `{id, quantity|price}` changes, `{id, deleted: true}`
 * removes), discounts (replaced), the payment method, invoicing settings and meta_data. Applies from
 * the next collection.
 */
@CommandHandler(UpdateSubscriptionCommand)
export class UpdateSubscriptionHandler implements ICommandHandler<UpdateSubscriptionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly inputs: SubscriptionInputs,
    private readonly clocks: TestClockTime,
    private readonly coupons: CouponRedemptions,
  ) {}

  async execute({ ctx: request, subscriptionId, body }: UpdateSubscriptionCommand): Promise<CommandResult> {
    const { state } = await this.executor.load(subscriptionDecider, subscriptionStream(subscriptionId));
    if (!ownedBy(state, request)) throw notFound('subscription', subscriptionId);
    // Decided at the subscription's test clock's time, when it lives on one.
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    const customerId = state.fields!.customer;
    const items = body.items === undefined ? undefined : await this.inputs.items(ctx, body.items);
    const paymentMethods = await this.inputs.paymentMethodFacts(ctx, customerId, null, body.payment_method);
    const discountIds = (body.discounts ?? []).map(() => newId('sd'));
    // `discounts: [{code}]` names a coupon, as on create: its figures come from it and the subscription
    // redeems it once (a redemption per subscription and coupon: naming it again counts nothing).
    const discounts = await this.coupons.resolve(ctx, body.discounts, state.fields!.currency, this.executor.now(ctx));
    const changes: SubscriptionChanges = { ...body, items };
    if (body.discounts !== undefined && body.discounts !== null && Array.isArray(body.discounts)) changes.discounts = discounts.map(({ coupon: _, ...d }) => d);
    if (items === undefined) delete changes.items;
    // Every rule first (nothing written), then the redemptions, then the change (redemptions given back if it is refused).
    subscriptionDecider.decide(this.command(ctx, subscriptionId, changes, discountIds, paymentMethods, this.executor.now(ctx)), state);
    const redeemed = discounts.filter((d) => d.coupon && !state.fields!.discounts.some((x) => x.code === d.code));
    await this.coupons.redeem(ctx, discounts, subscriptionId, state.fields!.currency);
    return onSubscription(this.executor, ctx, subscriptionId, (now) => this.command(ctx, subscriptionId, changes, discountIds, paymentMethods, now)).catch(async (error) => {
      await this.coupons.release(ctx, redeemed.flatMap((d) => (d.coupon ? [d.coupon] : [])), subscriptionId);
      throw error;
    });
  }

  private command(ctx: CommandContext, subscriptionId: string, changes: SubscriptionChanges, discountIds: string[], paymentMethods: Awaited<ReturnType<SubscriptionInputs['paymentMethodFacts']>>, now: Date) {
    return {
      type: 'UpdateSubscription' as const,
      owner: ctx,
      subscriptionId,
      changes,
      discountIds,
      paymentMethods,
      now,
    };
  }
}
