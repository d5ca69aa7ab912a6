import type { SealedSecret } from '#shared/sealing.js';

/**
 * The buyer identification of a customer's issued fiscal invoices, kept apart when the customer is
 * erased (docs/personal-data.md, "What is kept for tax law"): sealed under the master key, not under
 * the customer's data key, in the `fiscal_buyers` state collection, read only to show or re-send the
 * fiscal documents themselves, until `kept_until`.
 */
export const FISCAL_BUYERS = 'fiscal_buyers';

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

export interface FiscalBuyerDoc {
  id: string;
  account: string;
  is_test: boolean;
  /** The issued invoices whose buyer this is. */
  invoices: string[];
  /** JSON of a FiscalBuyer, sealed under the master key. */
  sealed: SealedSecret;
  kept_until: string;
  kept_at: string;
}
