import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { ownedBy } from '#shared/owner.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { notFound } from '#shared/errors.js';
import { collectionDecider, collectionStream } from '../domain/collection.decider.js';
import { CollectionLines, type ItemRequest } from './collection-lines.js';
import { onCollection } from './collection-command.js';

export class UpdateCollectionItemsCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly collectionId: string,
    readonly items: ItemRequest[],
  ) {}
}

/** Replaces the items of a pending or past_due collection; totals are recomputed at today's rates. */
@CommandHandler(UpdateCollectionItemsCommand)
export class UpdateCollectionItemsHandler implements ICommandHandler<UpdateCollectionItemsCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly clocks: TestClockTime,
  ) {}

  async execute({ ctx: request, collectionId, items }: UpdateCollectionItemsCommand): Promise<CommandResult> {
    const { state } = await this.executor.load(collectionDecider, collectionStream(collectionId));
    if (!ownedBy(state, request)) throw notFound('collection', collectionId);
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    const f = state.fields!;
    const lines = await this.lines.fromRequests(ctx, items, f.currency, this.executor.now(ctx), { oneTimeOnly: f.subscription === null });
    return onCollection(this.executor, ctx, collectionId, (now) => ({ type: 'UpdateCollectionItems', owner: ctx, collectionId, lines, now }));
  }
}
