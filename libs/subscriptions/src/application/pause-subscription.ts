import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onSubscription } from './subscription-command.js';

export class PauseSubscriptionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly subscriptionId: string,
    readonly resumesAt: string | null,
  ) {}
}

/** Pauses an active subscription (no collections while paused), optionally until `resumes_at`. */
@CommandHandler(PauseSubscriptionCommand)
export class PauseSubscriptionHandler implements ICommandHandler<PauseSubscriptionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, subscriptionId, resumesAt }: PauseSubscriptionCommand): Promise<CommandResult> {
    return onSubscription(this.executor, ctx, subscriptionId, (now) => ({ type: 'PauseSubscription', owner: ctx, subscriptionId, resumesAt, now }), this.clocks);
  }
}
