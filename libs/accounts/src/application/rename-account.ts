import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { accountDecider, accountStream } from '../domain/account.decider.js';

/** Rename the caller's account (`ctx.accountId`): the merchant name customers read in e-mails and on hosted pages. */
export class RenameAccountCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly name: string,
  ) {}
}

/** Records the account's new name; the name it already has writes nothing. */
@CommandHandler(RenameAccountCommand)
export class RenameAccountHandler implements ICommandHandler<RenameAccountCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, name }: RenameAccountCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      accountDecider,
      accountStream(ctx.accountId),
      (now) => ({ type: 'RenameAccount' as const, accountId: ctx.accountId, name, now }),
      ctx,
    );
    return { id: ctx.accountId, position };
  }
}
