import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type ProductChanges, productDecider, productStream } from '../domain/product.decider.js';

export class UpdateProductCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly productId: string,
    readonly changes: ProductChanges,
  ) {}
}

@CommandHandler(UpdateProductCommand)
export class UpdateProductHandler implements ICommandHandler<UpdateProductCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, productId, changes }: UpdateProductCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      productDecider,
      productStream(productId),
      (now) => ({ type: 'UpdateProduct' as const, owner: ctx, productId, changes, now }),
      ctx,
    );
    return { id: productId, position };
  }
}
