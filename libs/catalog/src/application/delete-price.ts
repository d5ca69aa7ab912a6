import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { priceDecider, priceStream } from '../domain/price.decider.js';

export class DeletePriceCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly priceId: string,
  ) {}
}

@CommandHandler(DeletePriceCommand)
export class DeletePriceHandler implements ICommandHandler<DeletePriceCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, priceId }: DeletePriceCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      priceDecider,
      priceStream(priceId),
      (now) => ({ type: 'DeletePrice' as const, owner: ctx, priceId, now }),
      ctx,
    );
    return { id: priceId, position };
  }
}
