import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { onCollection } from './collection-command.js';

export class SendCollectionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
  ) {}
}

/** Sends the collection (its hosted page) to the customer again: `collection.sent`. */
@CommandHandler(SendCollectionCommand)
export class SendCollectionHandler implements ICommandHandler<SendCollectionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
  ) {}

  execute({ ctx, collectionId }: SendCollectionCommand): Promise<CommandResult> {
    return onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'SendCollection', owner: ctx, collectionId, now }), this.clocks);
  }
}
