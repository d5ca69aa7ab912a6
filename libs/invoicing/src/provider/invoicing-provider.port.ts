import type { InvoiceAmounts, InvoiceLineInput, RetentionRates } from '../domain/invoice-amounts.js';
import type { InvoiceDocumentSettings } from '../domain/invoice/invoice.state.js';

/**
 * The invoicing-provider port: issues fiscal documents (electronic invoices and credit notes) under
 * the national tax authority's scheme. A connector (the embedded simulator, or a real provider such
 * as a DIAN-authorised technology provider) implements it and is named in the account's invoicing
 * settings (`provider`). Every call carries an idempotency key (the document id `inv_…`/`cn_…`): a
 * connector must answer a repeated key with the first result and never issue a document twice.
 * A failure (the provider down, a timeout) is thrown as `InvoicingProviderError`; the caller records
 * it and retries on a durable deadline.
 */
export interface IssueInvoiceRequest {
  idempotencyKey: string;
  accountId: string;
  mode: 'test' | 'live';
  /** The consecutive number of the account's range, assigned before the call (`SETT1001`). */
  number: string;
  issuedAt: string;
  currency: string;
  customer: { id: string; name: string | null; document_type: string | null; document_number: string | null; email: string | null };
  lines: InvoiceLineInput[];
  retentionRates: RetentionRates;
  /** The last millisecond of the due day in the account's zone: the document shows `calendarDayOf(dueDate)` (libs/shared/src/dates.ts). */
  dueDate: string | null;
  /** The provider parameters of the invoice (document type, cost center, and a checkout session's payment-method credit, vendor, self-withholding tax id). */
  invoiceSettings: InvoiceDocumentSettings;
}

export interface IssuedDocument {
  provider: string;
  number: string;
  /** The fiscal identifier: a CUFE (invoice) or CUDE (credit note), SHA-384 hex. */
  cufe: string;
  pdf_url: string;
  xml_url: string;
  issued_at: string;
}

export interface IssuedInvoice extends IssuedDocument {
  /** The figures as the provider computed them (taxes from the lines, withholdings at the rates). */
  amounts: InvoiceAmounts;
}

export interface IssueCreditNoteRequest {
  idempotencyKey: string;
  accountId: string;
  mode: 'test' | 'live';
  number: string;
  issuedAt: string;
  invoice: { number: string | null; cufe: string | null };
  amount: string;
  currency: string;
  reason: string;
}

export class InvoicingProviderError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface InvoicingProvider {
  readonly name: string;
  issueInvoice(request: IssueInvoiceRequest): Promise<IssuedInvoice>;
  issueCreditNote(request: IssueCreditNoteRequest): Promise<IssuedDocument>;
}

export const INVOICING_PROVIDERS = Symbol('INVOICING_PROVIDERS');
