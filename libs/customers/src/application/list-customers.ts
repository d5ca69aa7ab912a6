import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { narrowedBy, type Owner, ReadModels, type SearchMatch } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { Scalar } from '#read-store/read-store.port.js';
import type { CustomerDoc } from '../read-models/customer.read-model.js';
import { emailKey } from '../domain/customer.decider.js';

export class ListCustomersQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string; email?: string },
    /** The dashboard's search (SearchCustomersQuery); never set by the API. */
    readonly match?: SearchMatch,
  ) {}
}

/** Newest first; filter by `email` (exact, case-insensitive). */
@QueryHandler(ListCustomersQuery)
export class ListCustomersHandler implements IQueryHandler<ListCustomersQuery, ListPage<CustomerDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params, match }: ListCustomersQuery): Promise<ListPage<CustomerDoc>> {
    const where: Record<string, Scalar | Scalar[]> = params.email !== undefined ? { _email: emailKey(params.email) } : {};
    return this.readModels.list<CustomerDoc>('customers', '/v1/customers', owner, params, narrowedBy(where, match));
  }
}
