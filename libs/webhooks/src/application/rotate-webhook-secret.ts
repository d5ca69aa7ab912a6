import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { SecretVault } from '#platform/sealing.module.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.decider.js';
import { SystemClock } from '#shared/clock.js';
import { discardOnRefusal, sealedSigningSecret } from './endpoint-secrets.js';

export class RotateWebhookSecretCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
    /** Seconds the current secret keeps signing beside the new one (default 24 hours). */
    readonly expiresIn: unknown,
  ) {}
}

/** A new signing secret (answered once); the old one signs beside it until the overlap ends. */
@CommandHandler(RotateWebhookSecretCommand)
export class RotateWebhookSecretHandler implements ICommandHandler<RotateWebhookSecretCommand, CommandResult & { secret: string }> {
  private readonly wall = new SystemClock();

  constructor(
    private readonly executor: AggregateExecutor,
    private readonly vault: SecretVault,
  ) {}

  async execute({ ctx, endpointId, expiresIn }: RotateWebhookSecretCommand) {
    const { secret, ref: secretRef } = await sealedSigningSecret(this.vault, endpointId);
    const { position } = await this.executor
      .execute(
        webhookEndpointDecider,
        webhookEndpointStream(endpointId),
        (now) => ({ type: 'RotateWebhookSecret' as const, owner: ctx, endpointId, secretRef, overlapSeconds: expiresIn, now }),
        // The overlap runs on the wall clock the deliveries are signed at (never a test clock's or a fixed time).
        { ...ctx, now: this.wall.now() },
      )
      .catch(discardOnRefusal(this.vault, secretRef));
    return { id: endpointId, position, secret };
  }
}
