import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';
import { webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.decider.js';

export class DisableWebhookEndpointCommand {
  constructor(
    readonly endpoint: Pick<WebhookEndpointDoc, 'id' | '_account' | 'is_test'>,
    /** The event whose last retry failed. */
    readonly event: string,
  ) {}
}

/** The delivery worker gave up on an event: the endpoint is disabled, `webhook_endpoint.disabled` says so. */
@CommandHandler(DisableWebhookEndpointCommand)
export class DisableWebhookEndpointHandler implements ICommandHandler<DisableWebhookEndpointCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ endpoint, event }: DisableWebhookEndpointCommand): Promise<CommandResult> {
    const ctx = { accountId: endpoint._account, mode: endpoint.is_test ? ('test' as const) : ('live' as const), requestId: null, idempotencyKey: null };
    const { position } = await this.executor.execute(
      webhookEndpointDecider,
      webhookEndpointStream(endpoint.id),
      (now) => ({ type: 'DisableWebhookEndpoint' as const, owner: ctx, endpointId: endpoint.id, reason: 'delivery_failed', event, now }),
      ctx,
    );
    return { id: endpoint.id, position };
  }
}
