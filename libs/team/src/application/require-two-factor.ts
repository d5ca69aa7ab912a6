import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class RequireTwoFactorCommand {
  constructor(
    readonly staff: Staff,
    readonly required: boolean,
  ) {}
}

/** Requires (or stops requiring) two-factor sign-in of every member. */
@CommandHandler(RequireTwoFactorCommand)
export class RequireTwoFactorHandler implements ICommandHandler<RequireTwoFactorCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, required }: RequireTwoFactorCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'RequireTwoFactor', by: staff.member, required });
  }
}
