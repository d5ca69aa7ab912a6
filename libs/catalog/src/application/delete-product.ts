import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { ReadModels } from '#platform/read-models.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { productDecider, productStream } from '../domain/product.decider.js';

export class DeleteProductCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly productId: string,
  ) {}
}

/** Deletes a product that no price uses (the price count comes from the prices read model). */
@CommandHandler(DeleteProductCommand)
export class DeleteProductHandler implements ICommandHandler<DeleteProductCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
  ) {}

  async execute({ ctx, productId }: DeleteProductCommand): Promise<CommandResult> {
    const prices = await this.readModels.store.find('prices', {
      where: { product_id: productId, _deleted: false },
      orderBy: { field: '_created', direction: 'asc' },
      limit: 100,
    });
    const { position } = await this.executor.execute(
      productDecider,
      productStream(productId),
      (now) => ({ type: 'DeleteProduct' as const, owner: ctx, productId, priceCount: prices.length, now }),
      ctx,
    );
    return { id: productId, position };
  }
}
