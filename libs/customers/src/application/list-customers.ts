import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { CustomerDoc } from '../read-models/customer.read-model.js';
import { emailKey } from '../domain/customer.decider.js';

export class ListCustomersQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string; email?: string },
  ) {}
}

/** Newest first; filter by `email` (exact, case-insensitive). */
@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery, ListPage<CustomerDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListCustomersQuery): Promise<ListPage<CustomerDoc>> {
    const where: Record<string, string> = params.email !== undefined ? { _email: emailKey(params.email) } : {};
    return this.readModels.list<CustomerDoc>('customers', '/v1/customers', owner, params, where);
  }
}
