import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { type PriceInput, priceDecider, priceStream } from '../domain/price.decider.js';
import { productDecider, productStream } from '../domain/product.decider.js';

export class CreatePriceCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly fields: PriceInput,
  ) {}
}

/** Creates a price for a product of the caller's account and mode (the product's stream is read first). */
@CommandHandler(CreatePriceCommand)
export class CreatePriceHandler implements ICommandHandler<CreatePriceCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, fields }: CreatePriceCommand): Promise<CommandResult> {
    const { state: product } = await this.executor.load(productDecider, productStream(fields.product_id));
    const priceId = newId('price');
    const { position } = await this.executor.execute(
      priceDecider,
      priceStream(priceId),
      (now) => ({
        type: 'CreatePrice' as const,
        owner: ctx,
        priceId,
        product: { exists: product.exists, deleted: product.deleted, owner: product.owner },
        fields,
        now,
      }),
      ctx,
      { newStream: true },
    );
    return { id: priceId, position };
  }
}
