import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { SecretVault } from '#platform/sealing.module.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { type EndpointInput, webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.decider.js';
import { checkResolvesPublicly, discardOnRefusal, sealedSigningSecret } from './endpoint-secrets.js';

export class CreateWebhookEndpointCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: EndpointInput,
  ) {}
}

/** A new endpoint, enabled, with a new signing secret (answered once, with the endpoint). */
@CommandHandler(CreateWebhookEndpointCommand)
export class CreateWebhookEndpointHandler implements ICommandHandler<CreateWebhookEndpointCommand, CommandResult & { secret: string }> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly vault: SecretVault,
  ) {}

  async execute({ ctx, body }: CreateWebhookEndpointCommand) {
    await checkResolvesPublicly(body.url, ctx.mode);
    const endpointId = newId('we');
    const { secret, ref: secretRef } = await sealedSigningSecret(this.vault, endpointId);
    const { position } = await this.executor
      .execute(
        webhookEndpointDecider,
        webhookEndpointStream(endpointId),
        (now) => ({ type: 'CreateWebhookEndpoint' as const, owner: ctx, endpointId, input: body, secretRef, now }),
        ctx,
      )
      .catch(discardOnRefusal(this.vault, secretRef));
    return { id: endpointId, position, secret };
  }
}
