import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';

/** Remove `gateway` from the caller's account in the caller's mode. */
export class RemoveGatewayCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly gateway: string,
  ) {}
}

/** Takes a gateway out of the account's set for the mode (404 `resource_missing` when it is not in it). */
@CommandHandler(RemoveGatewayCommand)
export class RemoveGatewayHandler implements ICommandHandler<RemoveGatewayCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, gateway }: RemoveGatewayCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({ type: 'RemoveGateway' as const, accountId: ctx.accountId, mode: ctx.mode, gateway, now }),
      ctx,
    );
    return { id: gateway, position };
  }
}
