import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '../../../platform/src/read-models.js';
import { type ListPage, listPage } from '../../../http/src/list.js';
import { invalidParam } from '../../../shared/src/errors.js';
import type { CustomerDoc } from '../../../../projections/customers.projection.js';

export class ListCustomerPaymentMethodsQuery {
  constructor(
    readonly owner: Owner,
    readonly customerId: string,
    readonly params: { limit?: number; starting_after?: string },
  ) {}
}

/**
 * The payment methods stored against a customer (404 for a customer the caller cannot see).
 * No payment method exists yet (they arrive with tokenization), so the list is empty.
 */
@QueryHandler(ListCustomerPaymentMethodsQuery)
export class ListCustomerPaymentMethodsHandler
  implements IQueryHandler<ListCustomerPaymentMethodsQuery, ListPage<Record<string, unknown>>>
{
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, customerId, params }: ListCustomerPaymentMethodsQuery): Promise<ListPage<Record<string, unknown>>> {
    await this.readModels.get<CustomerDoc>('customers', 'customer', customerId, owner);
    if (params.starting_after !== undefined) {
      throw invalidParam('starting_after', `No such payment method: '${params.starting_after}'`);
    }
    return listPage(`/v1/customers/${customerId}/payment_methods`, [], params.limit ?? 10);
  }
}
