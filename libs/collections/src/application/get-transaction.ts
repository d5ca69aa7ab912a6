import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { TransactionDoc } from '../read-models/transaction.read-model.js';

export class GetTransactionQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetTransactionQuery)
export class GetTransactionHandler implements IQueryHandler<GetTransactionQuery, TransactionDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetTransactionQuery): Promise<TransactionDoc> {
    return this.readModels.get<TransactionDoc>('transactions', 'transaction', id, owner);
  }
}
