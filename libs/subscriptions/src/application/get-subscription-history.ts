import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { EventWithActor, PublicEvent } from '#events/read-models/event.read-model.js';
import type { SubscriptionDoc } from '../read-models/subscription.read-model.js';
import { ListEventsQuery } from '#events/application/list-events.js';

export class GetSubscriptionHistoryQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
    readonly params: { limit?: number; starting_after?: string },
    /** `actors`: each entry also says who caused it (the dashboard's timeline); the API never asks. */
    readonly options: { actors?: boolean } = {},
  ) {}
}

/**
 * Every event of the subscription and of its collections, transactions and charges, oldest first
 * (the feed's entries tagged with the subscription), paged like the feed.
 */
@QueryHandler(GetSubscriptionHistoryQuery)
export class GetSubscriptionHistoryHandler implements IQueryHandler<GetSubscriptionHistoryQuery, ListPage<PublicEvent | EventWithActor>> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly queries: QueryBus,
  ) {}

  async execute({ owner, id, params, options }: GetSubscriptionHistoryQuery): Promise<ListPage<PublicEvent | EventWithActor>> {
    await this.readModels.get<SubscriptionDoc>('subscriptions', 'subscription', id, owner);
    return this.queries.execute(
      new ListEventsQuery(owner, { limit: params.limit ?? 100, starting_after: params.starting_after, subscription: id }, `/v1/subscriptions/${id}/history`, { actors: options?.actors }),
    );
  }
}
