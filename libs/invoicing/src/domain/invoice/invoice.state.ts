import type { Owner } from '#shared/owner.js';
import type { MetaData } from '#shared/meta-data.js';
import type { InvoiceAmounts, RetentionRates } from '../invoice-amounts.js';

/**
 * An invoice's status follows its money (documented in docs/decisions/0036-invoices.md): `open` nothing paid
 * yet (credit notes may have lowered what is due), `partially_paid` some money paid and some still
 * due, `paid` nothing left to pay (paid and/or credited), `void` voided (nothing due). Its fiscal
 * issuance is tracked apart, in `issuance`.
 */
export const INVOICE_STATUSES = ['open', 'partially_paid', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** `pending`: not yet answered by the provider; `failed`: the last call failed (retried at `next_attempt_at`); `issued`; `external`: uploaded, issued elsewhere. */
export type IssuanceStatus = 'pending' | 'failed' | 'issued' | 'external';

export interface Issuance {
  status: IssuanceStatus;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
}

export interface FiscalReference {
  provider: string;
  /** The fiscal identifier (CUFE for invoices, CUDE for credit notes). */
  cufe: string | null;
  pdf_url: string | null;
  xml_url: string | null;
  issued_at: string;
}

export interface InvoicePayment {
  id: string;
  amount: string;
  date: string;
  collection: string | null;
  payment_method_type: string | null;
  /** The registered payment (receipt collection) it came from, when it did. */
  receipt: string | null;
}

export type CreditNoteStatus = 'issued' | 'void';

export interface CreditNoteFields {
  invoice: string;
  customer: string;
  number: string | null;
  amount: string;
  currency: string;
  reason: string;
  status: CreditNoteStatus;
  issuance: Issuance;
  fiscal: FiscalReference | null;
  voided_at: string | null;
  /** A credit note made for a refund of the invoice's collection. */
  refund: string | null;
}

/** The invoicing-provider parameters an invoice is issued with (a collection's `invoice_settings`, a checkout session's further ones). */
export interface InvoiceDocumentSettings {
  invoice_document_id: string | null;
  invoice_cost_center: string | null;
  invoice_payment_method_credit: string | null;
  invoice_vendor: string | null;
  invoice_autoretention_tax_id: string | null;
}

export const NO_INVOICE_SETTINGS: InvoiceDocumentSettings = {
  invoice_document_id: null,
  invoice_cost_center: null,
  invoice_payment_method_credit: null,
  invoice_vendor: null,
  invoice_autoretention_tax_id: null,
};

/** Every key of the settings, null when not given. */
export const invoiceDocumentSettings = (s: Partial<InvoiceDocumentSettings> | null | undefined): InvoiceDocumentSettings => ({
  invoice_document_id: s?.invoice_document_id ?? null,
  invoice_cost_center: s?.invoice_cost_center ?? null,
  invoice_payment_method_credit: s?.invoice_payment_method_credit ?? null,
  invoice_vendor: s?.invoice_vendor ?? null,
  invoice_autoretention_tax_id: s?.invoice_autoretention_tax_id ?? null,
});

export interface InvoiceFields extends InvoiceAmounts {
  number: string | null;
  status: InvoiceStatus;
  /** `collection`: issued for a collection of this service; `upload`: issued elsewhere and registered. */
  source: 'collection' | 'upload';
  customer: string;
  subscription: string | null;
  /** The collection the invoice was issued for (source collection) or opened for its balance (upload). */
  collection: string | null;
  currency: string;
  retention_rates: RetentionRates;
  /** The provider parameters it is issued with (invoices recorded before have none: all null). */
  invoice_settings: InvoiceDocumentSettings;
  total_paid: string;
  amount_credited: string;
  amount_due: string;
  issue_date: string | null;
  due_date: string | null;
  issuance: Issuance;
  fiscal: FiscalReference | null;
  payments: InvoicePayment[];
  credit_notes: string[];
  voided_at: string | null;
  paid_at: string | null;
  meta_data: MetaData;
  test_clock: string | null;
}

export interface InvoiceState {
  exists: boolean;
  owner: Owner | null;
  fields: InvoiceFields | null;
  creditNotes: Record<string, CreditNoteFields & { id: string }>;
}

export const invoiceStream = (invoiceId: string) => `invoice-${invoiceId}`;

/** Delays between issuance attempts after a provider failure (then every hour). */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];
export const nextAttemptAt = (now: Date, attempts: number) => new Date(now.getTime() + RETRY_DELAYS_MS[Math.min(attempts - 1, RETRY_DELAYS_MS.length - 1)]).toISOString();

/** What the scheduler waits for on an invoice: the next issuance attempt of it or of one of its credit notes. */
export function invoiceDeadline(f: InvoiceFields, creditNotes: Array<Pick<CreditNoteFields, 'issuance' | 'status'>>): { kind: 'issue'; at: string } | null {
  const at = [f.issuance, ...creditNotes.map((c) => c.issuance)]
    .filter((i) => i.status === 'failed' && i.next_attempt_at)
    .map((i) => i.next_attempt_at!)
    .sort()[0];
  return at ? { kind: 'issue', at } : null;
}
