import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { PriceDoc } from '../read-models/price.read-model.js';

export class GetPriceQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetPriceQuery)
export class GetPriceHandler implements IQueryHandler<GetPriceQuery, PriceDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetPriceQuery): Promise<PriceDoc> {
    return this.readModels.get<PriceDoc>('prices', 'price', id, owner);
  }
}
