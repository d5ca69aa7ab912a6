import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { type ListPage, listPage } from '#http/list.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { toPublic } from '#projection-runtime/projection.js';
import { type AttemptDoc, DeliveryLog } from './delivery-log.js';

export class ListDeliveryAttemptsQuery {
  constructor(
    readonly owner: Owner,
    readonly endpointId: string,
    readonly params: { limit?: number; starting_after?: string; event?: string },
  ) {}
}

/** An endpoint's delivery log, newest attempt first: event, attempt number, time, status code, duration, response (truncated). */
@QueryHandler(ListDeliveryAttemptsQuery)
export class ListDeliveryAttemptsHandler implements IQueryHandler<ListDeliveryAttemptsQuery, ListPage<AttemptDoc>> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: DeliveryLog,
  ) {}

  async execute({ owner, endpointId, params }: ListDeliveryAttemptsQuery): Promise<ListPage<AttemptDoc>> {
    // A deleted endpoint's log stays readable until pruned.
    const endpoint = await this.readModels.store.get<{ _account: string; is_test: boolean }>('webhook_endpoints', endpointId);
    if (!endpoint || endpoint._account !== owner.accountId || endpoint.is_test !== (owner.mode === 'test')) throw notFound('webhook_endpoint', endpointId);
    const limit = params.limit ?? 10;
    let after: { value: string; id: string } | undefined;
    if (params.starting_after) {
      const cursor = await this.readModels.store.get<AttemptDoc>('webhook_attempts', params.starting_after);
      if (!cursor || cursor._endpoint !== endpointId) throw invalidParam('starting_after', `No such delivery attempt: '${params.starting_after}'`);
      after = { value: cursor._created, id: cursor.id };
    }
    const rows = await this.log.attempts(endpointId, { limit: limit + 1, after, event: params.event });
    return listPage(`/v1/webhook_endpoints/${endpointId}/deliveries`, rows.map((r) => toPublic(r as unknown as Record<string, unknown>) as unknown as AttemptDoc), limit);
  }
}
