import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { narrowedBy, type Owner, ReadModels, type SearchMatch } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { Scalar } from '#read-store/read-store.port.js';
import type { CollectionDoc } from '../read-models/collection.read-model.js';

export interface ListCollectionsParams {
  limit?: number;
  starting_after?: string;
  customer?: string;
  subscription?: string;
  status?: string;
}

export class ListCollectionsQuery {
  constructor(
    readonly owner: Owner,
    readonly params: ListCollectionsParams,
    /** The dashboard's search (SearchCollectionsQuery); never set by the API. */
    readonly match?: SearchMatch,
  ) {}
}

/** Collections, newest first; filters `customer`, `subscription`, `status`. */
@QueryHandler(ListCollectionsQuery)
export class ListCollectionsHandler implements IQueryHandler<ListCollectionsQuery, ListPage<CollectionDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params, match }: ListCollectionsQuery): Promise<ListPage<CollectionDoc>> {
    const where: Record<string, Scalar> = {};
    if (params.customer) where.customer = params.customer;
    if (params.subscription) where.subscription = params.subscription;
    if (params.status) where.status = params.status;
    return this.readModels.list<CollectionDoc>('collections', '/v1/collections', owner, params, narrowedBy(where, match));
  }
}
