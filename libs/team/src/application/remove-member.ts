import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class RemoveMemberCommand {
  constructor(
    readonly staff: Staff,
    readonly member: string,
  ) {}
}

/** Removes a member from the team: their sessions end at once. */
@CommandHandler(RemoveMemberCommand)
export class RemoveMemberHandler implements ICommandHandler<RemoveMemberCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, member }: RemoveMemberCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'RemoveMember', by: staff.member, member });
  }
}
