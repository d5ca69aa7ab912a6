import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type InvoicingSettingsChanges, invoicingSettingsDecider, invoicingSettingsStream } from '../domain/invoicing-settings.decider.js';

export class UpdateInvoicingSettingsCommand {
  constructor(
    readonly owner: Pick<CommandContext, 'accountId' | 'mode'> & Partial<CommandContext>,
    readonly changes: InvoicingSettingsChanges,
  ) {}
}

/** The account's invoicing settings in the caller's mode (HTTP and CLI). */
@CommandHandler(UpdateInvoicingSettingsCommand)
export class UpdateInvoicingSettingsHandler implements ICommandHandler<UpdateInvoicingSettingsCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ owner, changes }: UpdateInvoicingSettingsCommand): Promise<CommandResult> {
    const ctx: CommandContext = { requestId: null, idempotencyKey: null, ...owner };
    const { position } = await this.executor.execute(
      invoicingSettingsDecider,
      invoicingSettingsStream(owner.accountId, owner.mode),
      (now) => ({ type: 'UpdateInvoicingSettings' as const, accountId: owner.accountId, mode: owner.mode, changes, now }),
      ctx,
    );
    return { id: owner.accountId, position };
  }
}
