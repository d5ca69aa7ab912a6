import { Injectable } from '@nestjs/common';

/** What collections need to know of a collection's fiscal invoice (the invoicing context's figures). */
export interface FiscalInvoiceBalance {
  id: string;
  number: string | null;
  status: 'open' | 'partially_paid' | 'paid' | 'void';
  currency: string;
  total: string;
  total_paid: string;
  amount_credited: string;
  /** What is still owed: total − total_paid − amount_credited (never below 0). */
  amount_due: string;
  due_date: string | null;
}

export interface FiscalInvoiceReader {
  /** The invoice's figures read from its stream (exact right after a write), or null when it does not exist. */
  balanceOf(invoiceId: string): Promise<FiscalInvoiceBalance | null>;
}

/**
 * Collections do not depend on invoicing (invoicing depends on collections): the invoicing context
 * registers its reader here, and `register_invoices_payment`, `update/total` and `partial_payment`
 * weigh a collection against its fiscal invoice's real balance when it has one. With invoicing
 * disabled (no reader, or a collection without a fiscal invoice), the collection stands in for its
 * invoice as before (docs/decisions/0027-documented-collection-endpoints.md).
 */
@Injectable()
export class FiscalInvoices {
  private reader: FiscalInvoiceReader | null = null;

  register(reader: FiscalInvoiceReader): void {
    this.reader = reader;
  }

  async balanceOf(invoiceId: string | null | undefined): Promise<FiscalInvoiceBalance | null> {
    if (!invoiceId || !this.reader) return null;
    return this.reader.balanceOf(invoiceId);
  }
}
