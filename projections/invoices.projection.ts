import {
  type CreditNoteFields,
  type InvoiceEvent,
  type InvoiceFields,
  applyCreditNoteEvent,
  applyInvoiceEvent,
  invoiceDeadline,
} from '#invoicing/domain/invoice.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { CreditNoteDoc, InvoiceDoc } from '#invoicing/read-models/invoice.read-model.js';
import { DEADLINE_INDEX, NO_DEADLINE, deadlineFields } from '#shared/deadlines.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

const withDerived = (doc: InvoiceDoc): InvoiceDoc => ({
  ...doc,
  _due_sort: doc.due_date ?? NO_DEADLINE,
  ...deadlineFields(doc.test_clock, invoiceDeadline(doc, Object.values(doc._pending_credit_notes ?? {}))),
});

export const invoicesProjection: Projection<InvoiceDoc> = {
  name: 'invoices',
  category: 'invoice',
  object: 'invoice',
  collection: 'invoices',
  collections: [
    {
      name: 'invoices',
      indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', 'customer', '_due_sort'] }, { fields: ['_account', 'is_test', '_due_sort'] }, DEADLINE_INDEX],
    },
  ],
  documentIds: (e) => (e.streamId.startsWith('invoice-') ? [e.streamId.slice('invoice-'.length)] : []),
  project(doc, event) {
    const e = event as unknown as InvoiceEvent;
    if (e.type === 'invoice.created') {
      const { id, account_id, is_test, created_at } = e.data;
      const fields = applyInvoiceEvent(null as unknown as InvoiceFields, e);
      return withDerived({ ...newOwnedDoc('invoice', { id, account_id, is_test, created_at }, fields), _pending_credit_notes: {} } as InvoiceDoc);
    }
    if (!doc) return doc;
    if (e.type.startsWith('credit_note.')) {
      const id = (e.data as { id: string }).id;
      const before = (doc._pending_credit_notes[id] ?? null) as CreditNoteFields | null;
      // Only credit notes not yet issued are kept (their retries count in the deadline).
      if (!before && e.type !== 'credit_note.created') return doc;
      const after = applyCreditNoteEvent(before as CreditNoteFields, e);
      const pending = { ...doc._pending_credit_notes };
      if (after.issuance.status === 'issued') delete pending[id];
      else pending[id] = { issuance: after.issuance, status: after.status };
      return withDerived({ ...doc, _pending_credit_notes: pending });
    }
    return withDerived({ ...doc, ...applyInvoiceEvent(doc, e) });
  },
};

/** Credit notes (entities of their invoice's stream) as GET /v1/credit_notes/{id} serves them. */
export const creditNotesProjection: Projection<CreditNoteDoc> = {
  name: 'credit_notes',
  category: 'invoice',
  object: 'credit_note',
  collection: 'credit_notes',
  collections: [{ name: 'credit_notes', indexes: [...TENANT_INDEXES, { fields: ['_account', 'is_test', 'invoice', '_created'] }] }],
  documentIds: (e) => (e.type.startsWith('credit_note.') && e.streamId.startsWith('invoice-') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as InvoiceEvent;
    if (e.type === 'credit_note.created') {
      const { id, account_id, is_test, created_at } = e.data;
      return newOwnedDoc('credit_note', { id, account_id, is_test, created_at }, applyCreditNoteEvent(null as unknown as CreditNoteFields, e)) as CreditNoteDoc;
    }
    return doc && { ...doc, ...applyCreditNoteEvent(doc, e) };
  },
};
