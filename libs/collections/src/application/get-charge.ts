import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ChargeDoc } from '../read-models/charge.read-model.js';

export class GetChargeQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetChargeQuery)
export class GetChargeHandler implements IQueryHandler<GetChargeQuery, ChargeDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetChargeQuery): Promise<ChargeDoc> {
    return this.readModels.get<ChargeDoc>('charges', 'charge', id, owner);
  }
}
