import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class EnableMemberCommand {
  constructor(
    readonly staff: Staff,
    readonly member: string,
  ) {}
}

/** Enables a disabled member again. */
@CommandHandler(EnableMemberCommand)
export class EnableMemberHandler implements ICommandHandler<EnableMemberCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, member }: EnableMemberCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'EnableMember', by: staff.member, member });
  }
}
