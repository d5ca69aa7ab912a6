import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { SubscriptionItemDoc } from '../read-models/subscription-item.read-model.js';

export class GetSubscriptionItemQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetSubscriptionItemQuery)
export class GetSubscriptionItemHandler implements IQueryHandler<GetSubscriptionItemQuery, SubscriptionItemDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetSubscriptionItemQuery): Promise<SubscriptionItemDoc> {
    return this.readModels.get<SubscriptionItemDoc>('subscription_items', 'subscription item', id, owner);
  }
}
