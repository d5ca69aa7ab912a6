import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { CustomerDoc } from '../read-models/customer.read-model.js';
import type { PaymentMethodDoc } from '#payments/read-models/payment-method.read-model.js';

export class ListCustomerPaymentMethodsQuery {
  constructor(
    readonly owner: Owner,
    readonly customerId: string,
    readonly params: { limit?: number; starting_after?: string },
  ) {}
}

/** The payment methods stored against a customer, newest first (404 for a customer the caller cannot see). */
@QueryHandler(ListCustomerPaymentMethodsQuery)
export class ListCustomerPaymentMethodsHandler implements IQueryHandler<ListCustomerPaymentMethodsQuery, ListPage<PaymentMethodDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, customerId, params }: ListCustomerPaymentMethodsQuery): Promise<ListPage<PaymentMethodDoc>> {
    await this.readModels.get<CustomerDoc>('customers', 'customer', customerId, owner);
    return this.readModels.list<PaymentMethodDoc>('payment_methods', `/v1/customers/${customerId}/payment_methods`, owner, params, { customer: customerId });
  }
}
