import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import type { Shipping } from '../domain/subscription.decider.js';
import { onSubscription } from './subscription-command.js';

export class SetSubscriptionShippingCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
    readonly shipping: Shipping | null,
  ) {}
}

/** Where the subscription's goods go (name, phone, address); null removes it. */
@CommandHandler(SetSubscriptionShippingCommand)
export class SetSubscriptionShippingHandler implements ICommandHandler<SetSubscriptionShippingCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, subscriptionId, shipping }: SetSubscriptionShippingCommand): Promise<CommandResult> {
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({ type: 'SetShipping', owner: ctx, subscriptionId, shipping, now }), this.clocks);
  }
}

