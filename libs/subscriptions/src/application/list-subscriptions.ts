import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { narrowedBy, type Owner, ReadModels, type SearchMatch } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { Scalar } from '#read-store/read-store.port.js';
import type { SubscriptionDoc } from '../read-models/subscription.read-model.js';

export class ListSubscriptionsQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string; customer?: string; status?: string },
    /** The dashboard's search (SearchSubscriptionsQuery); never set by the API. */
    readonly match?: SearchMatch,
  ) {}
}

/** Subscriptions, newest first; filters `customer` and `status`. */
@QueryHandler(ListSubscriptionsQuery)
export class ListSubscriptionsHandler implements IQueryHandler<ListSubscriptionsQuery, ListPage<SubscriptionDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params, match }: ListSubscriptionsQuery): Promise<ListPage<SubscriptionDoc>> {
    const where: Record<string, Scalar> = {};
    if (params.customer) where.customer = params.customer;
    if (params.status) where.status = params.status;
    return this.readModels.list<SubscriptionDoc>('subscriptions', '/v1/subscriptions', owner, params, narrowedBy(where, match));
  }
}
