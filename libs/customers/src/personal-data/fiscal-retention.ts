import type { SealedSecret } from '#shared/sealing.js';
import type { CollectionSpec } from '#read-store/read-store.port.js';
import { DEADLINE_INDEX, type DeadlineFields, deadlineFields } from '#shared/deadlines.js';

/**
 * The buyer identification of a customer's issued fiscal invoices, kept apart when the customer is
 * erased (docs/personal-data.md, "What is kept for tax law"): sealed under the master key, not under
 * the customer's data key, in the `fiscal_buyers` state collection, read only to show or re-send the
 * fiscal documents themselves, until `kept_until`.
 */
export const FISCAL_BUYERS = 'fiscal_buyers';

/** A state collection (never a projection) whose documents carry their purge as a deadline the scheduler runs. */
export const FISCAL_BUYERS_SPEC: CollectionSpec = { name: FISCAL_BUYERS, indexes: [DEADLINE_INDEX] };

/** The deadline kind that deletes a kept buyer identification at `kept_until`. */
export const FISCAL_PURGE = 'fiscal_purge';

/** The deadline fields of a kept buyer identification: purged at `kept_until`, on its customer's test clock if it has one. */
export function fiscalPurgeFields(accountId: string, clock: string | null, keptUntil: string): DeadlineFields & { _account: string } {
  return { _account: accountId, ...deadlineFields(clock, { kind: FISCAL_PURGE, at: keptUntil }) };
}

/** Years the merchant keeps an issued invoice's support (Estatuto Tributario art. 632; Decreto 1625 de 2016 art. 1.6.1.4.13… see docs/personal-data.md). */
export const FISCAL_RETENTION_YEARS = 5;

export const FISCAL_RETENTION_BASIS =
  'The buyer identification on issued electronic invoices is kept, sealed apart from the customer\'s erased data, for the legal retention period (Estatuto Tributario art. 632; Ley 1581 de 2012 and Decreto 1377 de 2013 art. 9: no suppression while a legal duty to keep the data remains)';

export interface FiscalBuyer {
  name: string | null;
  email: string | null;
  document_type: string | null;
  document_number: string | null;
  billing_address: unknown;
}

export interface FiscalBuyerDoc extends Partial<DeadlineFields> {
  id: string;
  /** The deadline fields (`_account`, `_clock`, `_due_at` = `kept_until`, `_due_kind` = FISCAL_PURGE); absent on documents kept before the purge existed until the start backfills them. */
  _account?: string;
  account: string;
  is_test: boolean;
  /** The issued invoices whose buyer this is. */
  invoices: string[];
  /** JSON of a FiscalBuyer, sealed under the master key. */
  sealed: SealedSecret;
  kept_until: string;
  kept_at: string;
}
