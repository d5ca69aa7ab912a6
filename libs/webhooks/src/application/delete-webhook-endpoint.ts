import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.decider.js';

export class DeleteWebhookEndpointCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
  ) {}
}

/** Deletes an endpoint: nothing more is sent to it (its pending retries are dropped with it). */
@CommandHandler(DeleteWebhookEndpointCommand)
export class DeleteWebhookEndpointHandler implements ICommandHandler<DeleteWebhookEndpointCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, endpointId }: DeleteWebhookEndpointCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      webhookEndpointDecider,
      webhookEndpointStream(endpointId),
      (now) => ({ type: 'DeleteWebhookEndpoint' as const, owner: ctx, endpointId, now }),
      ctx,
    );
    return { id: endpointId, position };
  }
}
