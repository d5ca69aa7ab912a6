import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { Scalar } from '#read-store/read-store.port.js';
import type { PriceDoc } from '../read-models/price.read-model.js';
import type { PriceType } from '../domain/price.decider.js';

export interface PriceFilter {
  limit?: number;
  starting_after?: string;
  product_id?: string;
  active?: boolean;
  type?: PriceType;
  currency?: string;
}

export class ListPricesQuery {
  constructor(
    readonly owner: Owner,
    readonly params: PriceFilter,
  ) {}
}

/** Newest first; filter by `product_id`, `active`, `type`, `currency` (any case). */
@QueryHandler(ListPricesQuery)
export class ListPricesHandler implements IQueryHandler<ListPricesQuery, ListPage<PriceDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListPricesQuery): Promise<ListPage<PriceDoc>> {
    const where: Record<string, Scalar> = {};
    if (params.product_id !== undefined) where.product_id = params.product_id;
    if (params.active !== undefined) where.active = params.active;
    if (params.type !== undefined) where.type = params.type;
    if (params.currency !== undefined) where.currency = params.currency.toUpperCase();
    return this.readModels.list<PriceDoc>('prices', '/v1/prices', owner, params, where);
  }
}
