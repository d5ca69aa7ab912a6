import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type EndpointInput, webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.decider.js';
import { checkResolvesPublicly } from './endpoint-secrets.js';

export class UpdateWebhookEndpointCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
    readonly body: EndpointInput,
  ) {}
}

/** Changes url, enabled_events, description, meta_data (merged) or status (`enabled` re-enables a disabled endpoint). */
@CommandHandler(UpdateWebhookEndpointCommand)
export class UpdateWebhookEndpointHandler implements ICommandHandler<UpdateWebhookEndpointCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, endpointId, body }: UpdateWebhookEndpointCommand): Promise<CommandResult> {
    if (body.url !== undefined) await checkResolvesPublicly(body.url, ctx.mode);
    const { position } = await this.executor.execute(
      webhookEndpointDecider,
      webhookEndpointStream(endpointId),
      (now) => ({ type: 'UpdateWebhookEndpoint' as const, owner: ctx, endpointId, input: body, now }),
      ctx,
    );
    return { id: endpointId, position };
  }
}
