import type { OwnedDoc } from '#platform/read-models.js';
import type { DeadlineFields } from '#shared/deadlines.js';
import type { CreditNoteFields, InvoiceFields } from '../domain/invoice.decider.js';

/**
 * Invoices as GET /v1/invoices serves them (streams `invoice-inv_…`), with `_due_sort` (lists in
 * due-date order; no due date sorts last) and the deadline of the next issuance retry (`_due_kind`
 * `issue`) for the scheduler. `_pending_credit_notes` keeps the issuance of credit notes not yet
 * issued, so their retries count in the deadline.
 */
export type InvoiceDoc = OwnedDoc &
  InvoiceFields &
  DeadlineFields & { object: 'invoice'; created_date: string; _due_sort: string; _pending_credit_notes: Record<string, Pick<CreditNoteFields, 'issuance' | 'status'>> };

export type CreditNoteDoc = OwnedDoc & CreditNoteFields & { object: 'credit_note'; created_date: string };
