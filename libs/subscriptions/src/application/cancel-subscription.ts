import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onSubscription } from './subscription-command.js';

export class CancelSubscriptionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
    readonly cancelAt: 'period_end' | 'now',
  ) {}
}

/** `period_end`: `pending_cancel`, no renewal; `now`: `canceled` at once. */
@CommandHandler(CancelSubscriptionCommand)
export class CancelSubscriptionHandler implements ICommandHandler<CancelSubscriptionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, subscriptionId, cancelAt }: CancelSubscriptionCommand): Promise<CommandResult> {
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({ type: 'CancelSubscription', owner: ctx, subscriptionId, cancelAt, now }), this.clocks);
  }
}
