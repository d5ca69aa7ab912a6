import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { CreditNoteDoc, InvoiceDoc } from '../read-models/invoice.read-model.js';

export class ListCreditNotesQuery {
  constructor(
    readonly owner: Owner,
    readonly invoiceId: string,
    readonly params: { limit?: number; starting_after?: string },
  ) {}
}

/** An invoice's credit notes, newest first. */
@QueryHandler(ListCreditNotesQuery)
export class ListCreditNotesHandler implements IQueryHandler<ListCreditNotesQuery, ListPage<CreditNoteDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, invoiceId, params }: ListCreditNotesQuery): Promise<ListPage<CreditNoteDoc>> {
    await this.readModels.get<InvoiceDoc>('invoices', 'invoice', invoiceId, owner);
    return this.readModels.list<CreditNoteDoc>('credit_notes', `/v1/invoices/${invoiceId}/credit_notes`, owner, params, { invoice: invoiceId });
  }
}
