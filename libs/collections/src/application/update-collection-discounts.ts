import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { newId } from '#shared/ids.js';
import { onCollection } from './collection-command.js';

export class UpdateCollectionDiscountsCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly discounts: Array<{ code: string; amount?: string; percent?: string }>,
  ) {}
}

/** Replaces the discounts of a pending or past_due collection; totals are recomputed. */
@CommandHandler(UpdateCollectionDiscountsCommand)
export class UpdateCollectionDiscountsHandler implements ICommandHandler<UpdateCollectionDiscountsCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, collectionId, discounts }: UpdateCollectionDiscountsCommand): Promise<CommandResult> {
    const entries = discounts.map((d) => ({ id: newId('sd'), code: d.code, amount: d.amount ?? null, percent: d.percent ?? null }));
    return onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'UpdateCollectionDiscounts', owner: ctx, collectionId, discounts: entries, now }), this.clocks);
  }
}
