import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { PaymentMethodDoc } from '../read-models/payment-method.read-model.js';

export class GetPaymentMethodQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetPaymentMethodQuery)
export class GetPaymentMethodHandler implements IQueryHandler<GetPaymentMethodQuery, PaymentMethodDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetPaymentMethodQuery): Promise<PaymentMethodDoc> {
    return this.readModels.get<PaymentMethodDoc>('payment_methods', 'payment method', id, owner);
  }
}
