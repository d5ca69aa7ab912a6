import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';

export class TransferOwnershipCommand {
  constructor(
    readonly staff: Staff,
    readonly to: string,
  ) {}
}

/** Makes another active member the owner; the owner who transfers becomes an admin. */
@CommandHandler(TransferOwnershipCommand)
export class TransferOwnershipHandler implements ICommandHandler<TransferOwnershipCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  execute({ staff, to }: TransferOwnershipCommand): Promise<CommandResult> {
    return executeTeam(this.executor, staffContext(staff), { type: 'TransferOwnership', by: staff.member, to });
  }
}
