import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onCollection } from './collection-command.js';

export class DeleteCollectionDiscountCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly discountId: string,
  ) {}
}

/** Removes one discount from a pending or past_due collection; totals are recomputed. */
@CommandHandler(DeleteCollectionDiscountCommand)
export class DeleteCollectionDiscountHandler implements ICommandHandler<DeleteCollectionDiscountCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, collectionId, discountId }: DeleteCollectionDiscountCommand): Promise<CommandResult> {
    return onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'DeleteCollectionDiscount', owner: ctx, collectionId, discountId, now }), this.clocks);
  }
}
