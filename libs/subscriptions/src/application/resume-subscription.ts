import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onSubscription } from './subscription-command.js';

export class ResumeSubscriptionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
  ) {}
}

/** Resumes a paused subscription: back to `active`. */
@CommandHandler(ResumeSubscriptionCommand)
export class ResumeSubscriptionHandler implements ICommandHandler<ResumeSubscriptionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, subscriptionId }: ResumeSubscriptionCommand): Promise<CommandResult> {
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({ type: 'ResumeSubscription', owner: ctx, subscriptionId, now }), this.clocks);
  }
}
