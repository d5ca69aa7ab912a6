import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ProductDoc } from '../read-models/product.read-model.js';

export class GetProductQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetProductQuery)
export class GetProductHandler implements IQueryHandler<GetProductQuery, ProductDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetProductQuery): Promise<ProductDoc> {
    return this.readModels.get<ProductDoc>('products', 'product', id, owner);
  }
}
