import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import type { ShippingItem } from '../domain/subscription.decider.js';
import { onSubscription } from './subscription-command.js';

export class SetSubscriptionShippingItemCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
    readonly shippingItem: ShippingItem | null,
  ) {}
}

/** The shipping charge (description, amount in the subscription currency) billed with each next collection; null removes it. */
@CommandHandler(SetSubscriptionShippingItemCommand)
export class SetSubscriptionShippingItemHandler implements ICommandHandler<SetSubscriptionShippingItemCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, subscriptionId, shippingItem }: SetSubscriptionShippingItemCommand): Promise<CommandResult> {
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({ type: 'SetShippingItem', owner: ctx, subscriptionId, shippingItem, now }), this.clocks);
  }
}
