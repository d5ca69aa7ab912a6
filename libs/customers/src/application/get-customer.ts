import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { CustomerDoc } from '../read-models/customer.read-model.js';

export class GetCustomerQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetCustomerQuery)
export class GetCustomerHandler implements IQueryHandler<GetCustomerQuery, CustomerDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetCustomerQuery): Promise<CustomerDoc> {
    return this.readModels.get<CustomerDoc>('customers', 'customer', id, owner);
  }
}
