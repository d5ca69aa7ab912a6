import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '../../../shared/src/owner.js';
import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import type { CommandResult } from '../../../platform/src/write-then-read.js';
import { newId } from '../../../shared/src/ids.js';
import { notFound } from '../../../shared/src/errors.js';
import { TestClockTime } from '../../../test-clocks/src/application/test-clock-time.js';
import { type SubscriptionChanges, subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';
import { type ItemRequest, SubscriptionInputs } from './subscription-inputs.js';
import { onSubscription } from './subscription-command.js';

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
    const changes: SubscriptionChanges = { ...body, items };
    if (items === undefined) delete changes.items;
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({
      type: 'UpdateSubscription',
      owner: ctx,
      subscriptionId,
      changes,
      discountIds,
      paymentMethods,
      now,
    }));
  }
}
