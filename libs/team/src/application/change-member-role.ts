import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { Role } from '../domain/roles.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class ChangeMemberRoleCommand {
  constructor(
    readonly staff: Staff,
    readonly member: string,
    readonly role: Role,
  ) {}
}

/** Changes a member's role (only an owner touches the owner role; an active owner always remains); the member's sessions end. */
@CommandHandler(ChangeMemberRoleCommand)
export class ChangeMemberRoleHandler implements ICommandHandler<ChangeMemberRoleCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, member, role }: ChangeMemberRoleCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'ChangeRole', by: staff.member, member, role });
  }
}
