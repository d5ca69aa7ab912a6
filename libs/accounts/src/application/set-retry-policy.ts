import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';

/** Set the dunning (retry) policy of the caller's account (`ctx.accountId`; both modes share it). */
export class SetRetryPolicyCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly retry_days: number[],
    readonly final_days: number,
  ) {}
}

/** Records the account's new retry policy; setting the policy it already has writes nothing. */
@CommandHandler(SetRetryPolicyCommand)
export class SetRetryPolicyHandler implements ICommandHandler<SetRetryPolicyCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, retry_days, final_days }: SetRetryPolicyCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({ type: 'SetRetryPolicy' as const, accountId: ctx.accountId, retry_days, final_days, now }),
      ctx,
    );
    return { id: ctx.accountId, position };
  }
}
