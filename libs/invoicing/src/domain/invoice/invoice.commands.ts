import type { Owner } from '#shared/owner.js';
import type { MetaData } from '#shared/meta-data.js';
import type { InvoiceAmounts, InvoiceLineInput, RetentionRates } from '../invoice-amounts.js';
import type { FiscalReference, InvoiceDocumentSettings } from './invoice.state.js';

export interface InvoiceInput {
  source: 'collection' | 'upload';
  customer: string;
  subscription: string | null;
  collection: string | null;
  currency: string;
  lines: InvoiceLineInput[];
  retention_rates: RetentionRates;
  /** The provider parameters (a collection's invoice_settings and a checkout session's further ones). */
  invoice_settings?: Partial<InvoiceDocumentSettings> | null;
  due_date: string | null;
  meta_data: MetaData;
  test_clock: string | null;
  /** Upload only: the document as issued elsewhere. */
  uploaded?: { number: string; issue_date: string; pdf_url: string | null; subtotal: string; tax_total: string; total: string };
}

export type InvoiceCommand =
  | { type: 'CreateInvoice'; owner: Owner; invoiceId: string; input: InvoiceInput; now: Date }
  | { type: 'RecordInvoiceIssued'; owner: Owner; invoiceId: string; number: string; fiscal: FiscalReference; amounts: InvoiceAmounts; now: Date }
  | { type: 'RecordInvoiceIssuanceFailure'; owner: Owner; invoiceId: string; error: string; now: Date }
  | {
      type: 'RecordInvoicePayment';
      owner: Owner;
      invoiceId: string;
      paymentId: string;
      amount: string;
      collection: string | null;
      paymentMethodType: string | null;
      receipt: string | null;
      now: Date;
    }
  | { type: 'VoidInvoice'; owner: Owner; invoiceId: string; now: Date }
  | { type: 'CreateCreditNote'; owner: Owner; invoiceId: string; creditNoteId: string; amount: string; reason: string; refund: string | null; now: Date }
  | { type: 'RecordCreditNoteIssued'; owner: Owner; invoiceId: string; creditNoteId: string; number: string; fiscal: FiscalReference; now: Date }
  | { type: 'RecordCreditNoteIssuanceFailure'; owner: Owner; invoiceId: string; creditNoteId: string; error: string; now: Date }
  | { type: 'VoidCreditNote'; owner: Owner; invoiceId: string; creditNoteId: string; now: Date };

export type InvoiceCommandOf<T extends InvoiceCommand['type']> = Extract<InvoiceCommand, { type: T }>;
