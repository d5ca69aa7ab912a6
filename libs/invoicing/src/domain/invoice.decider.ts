/**
 * The invoice aggregate, assembled: each command's decide function lives in
 * invoice/decide/<command>.ts; credit notes are entities of their invoice's stream, so "a credit
 * never takes the balance below zero" is decided in one stream with its expected revision.
 */
import { ownedBy } from '#shared/owner.js';
import type { Decider } from '#shared/decider.js';
import { notFound } from '#shared/errors.js';
import type { InvoiceCommand } from './invoice/invoice.commands.js';
import type { InvoiceEvent } from './invoice/invoice.events.js';
import type { InvoiceState } from './invoice/invoice.state.js';
import { evolveInvoice, initialInvoiceState } from './invoice/invoice.evolve.js';
import { decideCreateInvoice } from './invoice/decide/create-invoice.js';
import { decideRecordInvoiceIssued } from './invoice/decide/record-invoice-issued.js';
import { decideRecordInvoiceIssuanceFailure } from './invoice/decide/record-invoice-issuance-failure.js';
import { decideRecordInvoicePayment } from './invoice/decide/record-invoice-payment.js';
import { decideVoidInvoice } from './invoice/decide/void-invoice.js';
import { decideCreateCreditNote } from './invoice/decide/create-credit-note.js';
import { decideRecordCreditNoteIssued } from './invoice/decide/record-credit-note-issued.js';
import { decideRecordCreditNoteIssuanceFailure } from './invoice/decide/record-credit-note-issuance-failure.js';
import { decideVoidCreditNote } from './invoice/decide/void-credit-note.js';

export * from './invoice/invoice.state.js';
export * from './invoice/invoice.commands.js';
export * from './invoice/invoice.events.js';
export { applyInvoiceEvent, applyCreditNoteEvent } from './invoice/invoice.evolve.js';

export const invoiceDecider: Decider<InvoiceCommand, InvoiceState, InvoiceEvent> = {
  initialState: initialInvoiceState,
  decide(command, state) {
    if (command.type === 'CreateInvoice') return decideCreateInvoice(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('invoice', command.invoiceId);
    switch (command.type) {
      case 'RecordInvoiceIssued':
        return decideRecordInvoiceIssued(command, state);
      case 'RecordInvoiceIssuanceFailure':
        return decideRecordInvoiceIssuanceFailure(command, state);
      case 'RecordInvoicePayment':
        return decideRecordInvoicePayment(command, state);
      case 'VoidInvoice':
        return decideVoidInvoice(command, state);
      case 'CreateCreditNote':
        return decideCreateCreditNote(command, state);
      case 'RecordCreditNoteIssued':
        return decideRecordCreditNoteIssued(command, state);
      case 'RecordCreditNoteIssuanceFailure':
        return decideRecordCreditNoteIssuanceFailure(command, state);
      case 'VoidCreditNote':
        return decideVoidCreditNote(command, state);
    }
  },
  evolve: evolveInvoice,
};
