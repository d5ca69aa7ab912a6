import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { WebhookReplayDoc } from '../read-models/webhook-replay.read-model.js';
import { webhookReplayDecider, webhookReplayStream } from '../domain/webhook-replay.decider.js';

export class CompleteWebhookReplayCommand {
  constructor(
    readonly replay: Pick<WebhookReplayDoc, 'id' | '_account' | 'is_test'>,
    readonly delivered: number,
  ) {}
}

/** The replay worker went past the replay's last event. */
@CommandHandler(CompleteWebhookReplayCommand)
export class CompleteWebhookReplayHandler implements ICommandHandler<CompleteWebhookReplayCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ replay, delivered }: CompleteWebhookReplayCommand): Promise<CommandResult> {
    const ctx = { accountId: replay._account, mode: replay.is_test ? ('test' as const) : ('live' as const), requestId: null, idempotencyKey: null };
    const { position } = await this.executor.execute(
      webhookReplayDecider,
      webhookReplayStream(replay.id),
      (now) => ({ type: 'CompleteWebhookReplay' as const, replayId: replay.id, delivered, now }),
      ctx,
    );
    return { id: replay.id, position };
  }
}

export class CancelWebhookReplayCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
    readonly replayId: string,
  ) {}
}

/** Cancels a running replay: its worker sends nothing after the attempt in flight. */
@CommandHandler(CancelWebhookReplayCommand)
export class CancelWebhookReplayHandler implements ICommandHandler<CancelWebhookReplayCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, endpointId, replayId }: CancelWebhookReplayCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(
      webhookReplayDecider,
      webhookReplayStream(replayId),
      (now) => ({ type: 'CancelWebhookReplay' as const, owner: ctx, replayId, endpointId, now }),
      ctx,
    );
    return { id: replayId, position };
  }
}
