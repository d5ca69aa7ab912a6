import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { TransactionDoc } from '../read-models/transaction.read-model.js';

export class ListTransactionsQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string; collection?: string },
  ) {}
}

/** Payment attempts, newest first; filter `collection`. */
@QueryHandler(ListTransactionsQuery)
export class ListTransactionsHandler implements IQueryHandler<ListTransactionsQuery, ListPage<TransactionDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListTransactionsQuery): Promise<ListPage<TransactionDoc>> {
    return this.readModels.list<TransactionDoc>('transactions', '/v1/transactions', owner, params, params.collection ? { collection: params.collection } : {});
  }
}
