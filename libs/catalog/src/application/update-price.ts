import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type PriceChanges, priceDecider, priceStream } from '../domain/price.decider.js';

export class UpdatePriceCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly priceId: string,
    readonly changes: PriceChanges,
  ) {}
}

/** Changes `active` and `meta_data` (the rest of a price is immutable). */
@CommandHandler(UpdatePriceCommand)
export class UpdatePriceHandler implements ICommandHandler<UpdatePriceCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, priceId, changes }: UpdatePriceCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      priceDecider,
      priceStream(priceId),
      (now) => ({ type: 'UpdatePrice' as const, owner: ctx, priceId, changes, now }),
      ctx,
    );
    return { id: priceId, position };
  }
}
