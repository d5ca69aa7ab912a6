import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';

/** Configure `gateway` on the caller's account in the caller's mode (`ctx.accountId`, `ctx.mode`). */
export class ConfigureGatewayCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly gateway: string,
  ) {}
}

/** Adds a gateway to the account's set for the mode; configuring one already there writes nothing. */
@CommandHandler(ConfigureGatewayCommand)
export class ConfigureGatewayHandler implements ICommandHandler<ConfigureGatewayCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, gateway }: ConfigureGatewayCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({ type: 'ConfigureGateway' as const, accountId: ctx.accountId, mode: ctx.mode, gateway, now }),
      ctx,
    );
    return { id: gateway, position };
  }
}
