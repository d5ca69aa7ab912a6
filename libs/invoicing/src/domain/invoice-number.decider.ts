import { createHash } from 'node:crypto';
import type { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError } from '#shared/errors.js';
import type { Owner } from '#shared/owner.js';

/**
 * How long a claim protects its number even when its document does not (yet) exist: the time
 * between taking the claim and writing an uploaded invoice. After that, a claim whose invoice was
 * never written (a crash between the two writes) is an orphan that another invoice may take.
 */
export const NUMBER_CLAIM_GRACE_MS = 60_000;

export type FiscalDocumentKind = 'invoice' | 'credit_note';

/** A fiscal number as compared for uniqueness: surrounding spaces and letter case ignored (`fe1001` is `FE1001`). */
export const fiscalNumberKey = (number: string) => number.trim().toUpperCase();

/**
 * One stream per (account, mode, kind, number): `invoicenumber-<sha256(account|mode|kind|NUMBER)>`.
 * The prefix is part of the number (`FE1001`, `SETT1001`), so a number is unique per numbering range.
 * Its category is not a public resource, so its events stay out of the event feed.
 */
export const invoiceNumberStream = (owner: Owner, kind: FiscalDocumentKind, number: string) =>
  `invoicenumber-${createHash('sha256').update(`${owner.accountId}|${owner.mode}|${kind}|${fiscalNumberKey(number)}`).digest('hex')}`;

/** What the handler saw of the current holder's document just before deciding. */
export interface NumberHolderObservation {
  document: string;
  exists: boolean;
}

export type InvoiceNumberCommand =
  | { type: 'ClaimFiscalNumber'; kind: FiscalDocumentKind; number: string; document: string; holder: NumberHolderObservation | null; now: Date }
  | { type: 'ReleaseFiscalNumber'; document: string; now: Date };

export type FiscalNumberClaimed = DomainEvent<'fiscal_number.claimed', { document: string; number: string; kind: FiscalDocumentKind; claimed_at: string }>;
export type FiscalNumberReleased = DomainEvent<'fiscal_number.released', { document: string }>;
export type InvoiceNumberEvent = FiscalNumberClaimed | FiscalNumberReleased;

export interface InvoiceNumberState {
  /** The document (`inv_…`, `cn_…`) holding the number, or null when it is free. */
  holder: string | null;
  claimedAt: string | null;
}

/** 409 `invoice_number_taken` naming the document that holds the number. */
export const numberTaken = (kind: FiscalDocumentKind, number: string, holder: string) =>
  new DomainError(
    'invoice_number_taken',
    `${kind === 'invoice' ? 'Invoice' : 'Credit note'} number ${number.trim()} is already used by ${holder} in this account`,
    'number',
    409,
  );

/**
 * The claim that makes a fiscal number unique among an account's documents of one kind and mode
 * (uploaded invoices and those numbered from the account's range alike). Appended with the stream's
 * expected revision, so of any number of racing claims exactly one wins. A number is never given
 * back once its document exists (a void invoice keeps its number); only a claim whose upload was
 * refused after claiming, or an orphan, is released.
 */
export const invoiceNumberDecider: Decider<InvoiceNumberCommand, InvoiceNumberState, InvoiceNumberEvent> = {
  initialState: { holder: null, claimedAt: null },

  decide(command, state) {
    switch (command.type) {
      case 'ClaimFiscalNumber': {
        const claimed: FiscalNumberClaimed = {
          type: 'fiscal_number.claimed',
          data: { document: command.document, number: fiscalNumberKey(command.number), kind: command.kind, claimed_at: command.now.toISOString() },
        };
        if (state.holder === null) return [claimed];
        if (state.holder === command.document) return [];
        // Only an observation of this very holder counts; a holder that appeared since is a live claim.
        const seen = command.holder !== null && command.holder.document === state.holder ? command.holder : null;
        const young = command.now.getTime() - Date.parse(state.claimedAt!) < NUMBER_CLAIM_GRACE_MS;
        if (seen !== null && !seen.exists && !young) return [{ type: 'fiscal_number.released', data: { document: state.holder } }, claimed];
        throw numberTaken(command.kind, command.number, state.holder);
      }
      case 'ReleaseFiscalNumber':
        if (state.holder !== command.document) return [];
        return [{ type: 'fiscal_number.released', data: { document: command.document } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'fiscal_number.claimed':
        return { holder: event.data.document, claimedAt: event.data.claimed_at };
      case 'fiscal_number.released':
        return state.holder === event.data.document ? { holder: null, claimedAt: null } : state;
      default:
        return state;
    }
  },
};
