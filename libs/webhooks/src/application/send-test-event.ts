import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { eventIdFromUuid } from '#shared/ids.js';
import { webhookEndpointDecider, webhookEndpointStream } from '../domain/webhook-endpoint.decider.js';

export class SendTestEventCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
  ) {}
}

/** Test mode: a `webhook_endpoint.test` event in the feed, delivered to this endpoint only. Answers the event's id. */
@CommandHandler(SendTestEventCommand)
export class SendTestEventHandler implements ICommandHandler<SendTestEventCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, endpointId }: SendTestEventCommand): Promise<CommandResult> {
    const { events, position } = await this.executor.execute(
      webhookEndpointDecider,
      webhookEndpointStream(endpointId),
      (now) => ({ type: 'SendTestEvent' as const, owner: ctx, endpointId, now }),
      ctx,
    );
    return { id: eventIdFromUuid(events[0].id), position };
  }
}
