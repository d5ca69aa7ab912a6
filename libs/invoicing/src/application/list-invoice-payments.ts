import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { InvoiceDoc } from '../read-models/invoice.read-model.js';

export class ListInvoicePaymentsQuery {
  constructor(
    readonly owner: Owner,
    readonly invoiceId: string,
  ) {}
}

/** The payments recorded against an invoice, oldest first: amount, date, collection, method, receipt. */
@QueryHandler(ListInvoicePaymentsQuery)
export class ListInvoicePaymentsHandler implements IQueryHandler<ListInvoicePaymentsQuery> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, invoiceId }: ListInvoicePaymentsQuery) {
    const doc = await this.readModels.get<InvoiceDoc>('invoices', 'invoice', invoiceId, owner);
    return { object: 'list', url: `/v1/invoices/${invoiceId}/payments`, has_more: false, data: doc.payments.map((p) => ({ object: 'invoice_payment', invoice: invoiceId, ...p })) };
  }
}
