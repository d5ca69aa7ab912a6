import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { type ListPage, listPage } from '#http/list.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import type { FeedEntry } from '#events/read-models/event.read-model.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';
import { publicReplay, REPLAYS, type WebhookReplayDoc } from '../read-models/webhook-replay.read-model.js';
import { type FeedEventRef, type ReplayInput, webhookReplayDecider, webhookReplayStream } from '../domain/webhook-replay.decider.js';
import { DeliveryLog } from './delivery-log.js';
export { CancelWebhookReplayCommand, CancelWebhookReplayHandler } from './complete-webhook-replay.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

export class StartWebhookReplayCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly endpointId: string,
    readonly body: ReplayInput,
  ) {}
}

/** A replay of the account's feed to one endpoint, from an `evt_` (exclusive) or a time; the delivery worker sends it. */
@CommandHandler(StartWebhookReplayCommand)
export class StartWebhookReplayHandler implements ICommandHandler<StartWebhookReplayCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly readModels: ReadModels,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  async execute({ ctx, endpointId, body }: StartWebhookReplayCommand): Promise<CommandResult> {
    const endpoint = await this.readModels.find<WebhookEndpointDoc>('webhook_endpoints', endpointId, ctx);
    // The `evt_` bounds as the feed has them (only this account's and mode's: another's is "no such event").
    const events: Record<string, FeedEventRef | null> = {};
    for (const value of [body.from, body.to]) {
      if (typeof value !== 'string' || !value.startsWith('evt_')) continue;
      const entry = await this.readModels.store.get<FeedEntry>('events', value);
      events[value] = entry && entry._account === ctx.accountId && entry.is_test === (ctx.mode === 'test') ? { seq: entry._seq } : null;
    }
    const replayId = newId('whr');
    const { position } = await this.executor.execute(
      webhookReplayDecider,
      webhookReplayStream(replayId),
      (now) => ({
        type: 'StartWebhookReplay' as const,
        owner: ctx,
        replayId,
        endpointId,
        endpoint: endpoint && { id: endpoint.id, enabled_events: endpoint.enabled_events, status: endpoint.status },
        input: body,
        events,
        now,
      }),
      ctx,
      { newStream: true },
    );
    this.dispatcher.refreshSoon();
    return { id: replayId, position };
  }
}

export class GetWebhookReplayQuery {
  constructor(
    readonly owner: Owner,
    readonly endpointId: string,
    readonly replayId: string,
  ) {}
}

/** A replay with its progress (`delivered`, `cursor`: the last event it has gone past). */
@QueryHandler(GetWebhookReplayQuery)
export class GetWebhookReplayHandler implements IQueryHandler<GetWebhookReplayQuery, Record<string, unknown>> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: DeliveryLog,
  ) {}

  async execute({ owner, endpointId, replayId }: GetWebhookReplayQuery): Promise<Record<string, unknown>> {
    const doc = await this.readModels.find<WebhookReplayDoc>(REPLAYS, replayId, owner);
    if (!doc || doc._endpoint !== endpointId) throw notFound('webhook_replay', replayId);
    return publicReplay(doc, await this.log.replayProgress(doc.id));
  }
}

export class ListWebhookReplaysQuery {
  constructor(
    readonly owner: Owner,
    readonly endpointId: string,
    readonly params: { limit?: number; starting_after?: string },
  ) {}
}

/** An endpoint's replays, newest first. */
@QueryHandler(ListWebhookReplaysQuery)
export class ListWebhookReplaysHandler implements IQueryHandler<ListWebhookReplaysQuery, ListPage<Record<string, unknown>>> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: DeliveryLog,
  ) {}

  async execute({ owner, endpointId, params }: ListWebhookReplaysQuery): Promise<ListPage<Record<string, unknown>>> {
    // A deleted endpoint's replays stay readable.
    const endpoint = await this.readModels.store.get<WebhookEndpointDoc>('webhook_endpoints', endpointId);
    if (!endpoint || endpoint._account !== owner.accountId || endpoint.is_test !== (owner.mode === 'test')) throw notFound('webhook_endpoint', endpointId);
    const limit = params.limit ?? 10;
    let after: { value: string; id: string } | undefined;
    if (params.starting_after) {
      const cursor = await this.readModels.find<WebhookReplayDoc>(REPLAYS, params.starting_after, owner);
      if (!cursor || cursor._endpoint !== endpointId) throw invalidParam('starting_after', `No such webhook replay: '${params.starting_after}'`);
      after = { value: cursor._created, id: cursor.id };
    }
    const rows = await this.readModels.store.find<WebhookReplayDoc>(REPLAYS, {
      where: { _endpoint: endpointId, _account: owner.accountId, is_test: owner.mode === 'test' },
      orderBy: { field: '_created', direction: 'desc' },
      after,
      limit: limit + 1,
    });
    const out = await Promise.all(rows.map(async (r) => publicReplay(r, await this.log.replayProgress(r.id))));
    return listPage(`/v1/webhook_endpoints/${endpointId}/replays`, out, limit);
  }
}
