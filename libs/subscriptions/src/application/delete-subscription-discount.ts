import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onSubscription } from './subscription-command.js';

export class DeleteSubscriptionDiscountCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
    readonly discountId: string,
  ) {}
}

/** Removes a discount (`sd_…`) from the subscription's next collections. */
@CommandHandler(DeleteSubscriptionDiscountCommand)
export class DeleteSubscriptionDiscountHandler implements ICommandHandler<DeleteSubscriptionDiscountCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, subscriptionId, discountId }: DeleteSubscriptionDiscountCommand): Promise<CommandResult> {
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({ type: 'DeleteSubscriptionDiscount', owner: ctx, subscriptionId, discountId, now }), this.clocks);
  }
}
