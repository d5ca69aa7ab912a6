import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { Scalar } from '#read-store/read-store.port.js';
import type { ChargeDoc } from '../read-models/charge.read-model.js';

export interface ListChargesParams {
  limit?: number;
  starting_after?: string;
  collection?: string;
  customer?: string;
  transaction?: string;
  status?: string;
}

export class ListChargesQuery {
  constructor(
    readonly owner: Owner,
    readonly params: ListChargesParams,
  ) {}
}

/** Charges, newest first; filters `collection`, `customer`, `transaction`, `status`. */
@QueryHandler(ListChargesQuery)
export class ListChargesHandler implements IQueryHandler<ListChargesQuery, ListPage<ChargeDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListChargesQuery): Promise<ListPage<ChargeDoc>> {
    const where: Record<string, Scalar> = {};
    for (const k of ['collection', 'customer', 'transaction', 'status'] as const) if (params[k]) where[k] = params[k]!;
    return this.readModels.list<ChargeDoc>('charges', '/v1/charges', owner, params, where);
  }
}
