import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#platform/command-context.js';
import { ReadModels } from '#platform/read-models.js';
import type { InvoiceDoc } from '../read-models/invoice.read-model.js';
import { InvoiceTime } from './invoice-time.js';

export class GetInvoiceQuery {
  constructor(
    readonly ctx: CommandContext,
    readonly id: string,
  ) {}
}

/** One invoice with its `overdue` flag. */
@QueryHandler(GetInvoiceQuery)
export class GetInvoiceHandler implements IQueryHandler<GetInvoiceQuery> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly time: InvoiceTime,
  ) {}

  async execute({ ctx, id }: GetInvoiceQuery) {
    const [doc] = await this.time.present(ctx, [await this.readModels.get<InvoiceDoc>('invoices', 'invoice', id, ctx)]);
    return doc;
  }
}
