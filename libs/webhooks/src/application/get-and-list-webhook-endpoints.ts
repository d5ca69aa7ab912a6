import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';

export class GetWebhookEndpointQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

/** An endpoint as served: never its secret (the `_secrets` field is internal). */
@QueryHandler(GetWebhookEndpointQuery)
export class GetWebhookEndpointHandler implements IQueryHandler<GetWebhookEndpointQuery, WebhookEndpointDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetWebhookEndpointQuery): Promise<WebhookEndpointDoc> {
    return this.readModels.get<WebhookEndpointDoc>('webhook_endpoints', 'webhook_endpoint', id, owner);
  }
}

export class ListWebhookEndpointsQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string },
  ) {}
}

/** The account's endpoints of the key's mode, newest first. */
@QueryHandler(ListWebhookEndpointsQuery)
export class ListWebhookEndpointsHandler implements IQueryHandler<ListWebhookEndpointsQuery, ListPage<WebhookEndpointDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListWebhookEndpointsQuery): Promise<ListPage<WebhookEndpointDoc>> {
    return this.readModels.list<WebhookEndpointDoc>('webhook_endpoints', '/v1/webhook_endpoints', owner, params);
  }
}
