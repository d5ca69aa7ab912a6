import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class RevokeInvitationCommand {
  constructor(
    readonly staff: Staff,
    readonly member: string,
  ) {}
}

/** Revokes a pending invitation: its link stops working at once. */
@CommandHandler(RevokeInvitationCommand)
export class RevokeInvitationHandler implements ICommandHandler<RevokeInvitationCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, member }: RevokeInvitationCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'RevokeInvitation', by: staff.member, member });
  }
}
