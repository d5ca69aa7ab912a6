import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { atCollectionTime, onCollection } from './collection-command.js';
import { PaymentFollowUps } from './payment-follow-ups.js';
import { laterPosition } from '#event-store/positions.js';

export class VoidCollectionCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
  ) {}
}

/** Voids a collection that is pending, past_due or uncollectible (no attempt in flight): `collection.voided`. */
@CommandHandler(VoidCollectionCommand)
export class VoidCollectionHandler implements ICommandHandler<VoidCollectionCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly clocks: TestClockTime,
    private readonly followUps: PaymentFollowUps,
  ) {}

  async execute({ ctx, collectionId }: VoidCollectionCommand): Promise<CommandResult> {
    const result = await onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'VoidCollection', owner: ctx, collectionId, now }), this.clocks);
    // Its unpaid fiscal invoice is voided with it.
    return { ...result, position: laterPosition(result.position, await this.followUps.collectionVoided(await atCollectionTime(this.executor, this.clocks, ctx, collectionId), collectionId)) };
  }
}
