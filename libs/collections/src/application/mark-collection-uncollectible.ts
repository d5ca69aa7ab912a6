import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onCollection } from './collection-command.js';

export class MarkCollectionUncollectibleCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
  ) {}
}

/** Marks a pending or past_due collection uncollectible: `collection.uncollectible` (it can still be paid later). */
@CommandHandler(MarkCollectionUncollectibleCommand)
export class MarkCollectionUncollectibleHandler implements ICommandHandler<MarkCollectionUncollectibleCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, collectionId }: MarkCollectionUncollectibleCommand): Promise<CommandResult> {
    return onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'MarkUncollectible', owner: ctx, collectionId, now }), this.clocks);
  }
}
