import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { ProductDoc } from '../read-models/product.read-model.js';

export class ListProductsQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string; status?: string },
  ) {}
}

/** Newest first; filter by `status`. */
@QueryHandler(ListProductsQuery)
export class ListProductsHandler implements IQueryHandler<ListProductsQuery, ListPage<ProductDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListProductsQuery): Promise<ListPage<ProductDoc>> {
    const where: Record<string, string> = params.status ? { status: params.status } : {};
    return this.readModels.list<ProductDoc>('products', '/v1/products', owner, params, where);
  }
}
