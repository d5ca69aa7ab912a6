import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { type ProductChanges, productDecider, productStream } from '../domain/product.decider.js';

export class CreateProductCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly fields: ProductChanges & { name: string },
  ) {}
}

@CommandHandler(CreateProductCommand)
export class CreateProductHandler implements ICommandHandler<CreateProductCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, fields }: CreateProductCommand): Promise<CommandResult> {
    const productId = newId('prod');
    const { position } = await this.executor.execute(
      productDecider,
      productStream(productId),
      (now) => ({ type: 'CreateProduct' as const, owner: ctx, productId, fields, now }),
      ctx,
      { newStream: true },
    );
    return { id: productId, position };
  }
}
