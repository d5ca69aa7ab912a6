import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class DisableMemberCommand {
  constructor(
    readonly staff: Staff,
    readonly member: string,
  ) {}
}

/** Disables a member: their sessions end and they cannot sign in until enabled again. */
@CommandHandler(DisableMemberCommand)
export class DisableMemberHandler implements ICommandHandler<DisableMemberCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, member }: DisableMemberCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'DisableMember', by: staff.member, member });
  }
}
