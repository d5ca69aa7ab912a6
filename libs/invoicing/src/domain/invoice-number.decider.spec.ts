import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { invoicingSettingsDecider } from './invoicing-settings.decider.js';
import { NUMBER_CLAIM_GRACE_MS, type InvoiceNumberEvent, invoiceNumberDecider, invoiceNumberStream } from './invoice-number.decider.js';

const t0 = new Date('2026-11-23T10:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);
const claimedBy = (document: string, at = t0): InvoiceNumberEvent => ({ type: 'fiscal_number.claimed', data: { document, number: 'FE1001', kind: 'invoice', claimed_at: at.toISOString() } });
const claim = (document: string, now: Date, holder: { document: string; exists: boolean } | null = null) => ({
  type: 'ClaimFiscalNumber' as const,
  kind: 'invoice' as const,
  number: 'FE1001',
  document,
  holder,
  now,
});

describe('fiscal number claim', () => {
  test('a free number is claimed (kept upper-case)', () => {
    given(invoiceNumberDecider).when({ ...claim('inv_A', t0), number: ' fe1001 ' }).then([claimedBy('inv_A')]);
  });

  test('a number held by an existing invoice is 409 invoice_number_taken naming it', () => {
    const error = given(invoiceNumberDecider, [claimedBy('inv_A')])
      .when(claim('inv_B', later(NUMBER_CLAIM_GRACE_MS * 10), { document: 'inv_A', exists: true }))
      .thenRejects('invoice_number_taken', 'number');
    expect(error.status).toBe(409);
    expect(error.message).toBe('Invoice number FE1001 is already used by inv_A in this account');
  });

  test('the holder claiming again records nothing; a released number is free again', () => {
    given(invoiceNumberDecider, [claimedBy('inv_A')]).when(claim('inv_A', t0)).then([]);
    given(invoiceNumberDecider, [claimedBy('inv_A'), { type: 'fiscal_number.released', data: { document: 'inv_A' } }])
      .when(claim('inv_B', t0))
      .then([claimedBy('inv_B')]);
  });

  test('a fresh claim whose invoice is not written yet is live; an old one is an orphan and is taken over', () => {
    given(invoiceNumberDecider, [claimedBy('inv_A')])
      .when(claim('inv_B', later(NUMBER_CLAIM_GRACE_MS - 1), { document: 'inv_A', exists: false }))
      .thenRejects('invoice_number_taken', 'number');
    const at = later(NUMBER_CLAIM_GRACE_MS);
    given(invoiceNumberDecider, [claimedBy('inv_A')])
      .when(claim('inv_B', at, { document: 'inv_A', exists: false }))
      .then([{ type: 'fiscal_number.released', data: { document: 'inv_A' } }, claimedBy('inv_B', at)]);
  });

  test('release: only by its holder', () => {
    given(invoiceNumberDecider, [claimedBy('inv_A')]).when({ type: 'ReleaseFiscalNumber', document: 'inv_B', now: t0 }).then([]);
    given(invoiceNumberDecider, [claimedBy('inv_A')]).when({ type: 'ReleaseFiscalNumber', document: 'inv_A', now: t0 }).then([{ type: 'fiscal_number.released', data: { document: 'inv_A' } }]);
  });

  test('one stream per account, mode, kind and number (case and spaces ignored)', () => {
    const owner = { accountId: 'acct_1', mode: 'test' as const };
    expect(invoiceNumberStream(owner, 'invoice', ' fe1001')).toBe(invoiceNumberStream(owner, 'invoice', 'FE1001'));
    expect(invoiceNumberStream(owner, 'invoice', 'FE1001')).not.toBe(invoiceNumberStream({ ...owner, mode: 'live' }, 'invoice', 'FE1001'));
    expect(invoiceNumberStream(owner, 'invoice', 'FE1001')).not.toBe(invoiceNumberStream(owner, 'credit_note', 'FE1001'));
    expect(invoiceNumberStream(owner, 'invoice', 'FE1001')).toMatch(/^invoicenumber-[0-9a-f]{64}$/);
  });
});

describe('range numbering passes over a number found taken', () => {
  const assign = (replacing?: string) => ({ type: 'AssignDocumentNumber' as const, accountId: 'acct_1', mode: 'test' as const, document: 'inv_X', kind: 'invoice' as const, replacing, now: t0 });
  const assigned = (number: string) => ({ type: 'invoicing_settings.number_assigned' as const, data: { account_id: 'acct_1', mode: 'test', document: 'inv_X', kind: 'invoice' as const, number } });

  test('assigned once; replaced by the next number only when that very number is named as taken', () => {
    given(invoicingSettingsDecider).when(assign()).then([assigned('SETT1')]);
    given(invoicingSettingsDecider, [assigned('SETT1')]).when(assign()).then([]);
    given(invoicingSettingsDecider, [assigned('SETT1')]).when(assign('SETT1')).then([assigned('SETT2')]);
    // A stale retry naming a number the document no longer has changes nothing.
    given(invoicingSettingsDecider, [assigned('SETT1'), assigned('SETT2')]).when(assign('SETT1')).then([]);
  });
});
