import type { DomainEvent } from '#shared/decider.js';
import type { InvoiceAmounts } from '../invoice-amounts.js';
import type { CreditNoteFields, FiscalReference, InvoiceFields, InvoicePayment, InvoiceStatus } from './invoice.state.js';

type Ref = { id: string; customer: string };
type Balance = { total_paid: string; amount_credited: string; amount_due: string; status: InvoiceStatus };

export type InvoiceCreated = DomainEvent<'invoice.created', InvoiceFields & { id: string; account_id: string; is_test: boolean; created_at: string }>;
/** The provider issued it: its number, fiscal identifier and the figures it computed. */
export type InvoiceIssued = DomainEvent<'invoice.issued', Ref & { number: string; fiscal: FiscalReference; amounts: InvoiceAmounts; issue_date: string }>;
export type InvoiceIssuanceFailed = DomainEvent<'invoice.issuance_failed', Ref & { attempts: number; error: string; next_attempt_at: string; failed_at: string }>;
export type InvoicePaymentRecorded = DomainEvent<'invoice.payment_recorded', Ref & Balance & { payment: InvoicePayment }>;
export type InvoicePaid = DomainEvent<'invoice.paid', Ref & Balance & { paid_at: string }>;
export type InvoiceVoided = DomainEvent<'invoice.voided', Ref & { voided_at: string }>;
/** A credit note lowered the invoice's balance (or a voided one raised it back: `amount` negative is never used; see `invoice.credit_reversed`). */
export type InvoiceCredited = DomainEvent<'invoice.credited', Ref & Balance & { credit_note: string; amount: string; reason: string }>;
export type InvoiceCreditReversed = DomainEvent<'invoice.credit_reversed', Ref & Balance & { credit_note: string; amount: string }>;
export type CreditNoteCreated = DomainEvent<'credit_note.created', CreditNoteFields & { id: string; account_id: string; is_test: boolean; created_at: string }>;
export type CreditNoteIssued = DomainEvent<'credit_note.issued', { id: string; invoice: string; number: string; fiscal: FiscalReference }>;
export type CreditNoteIssuanceFailed = DomainEvent<'credit_note.issuance_failed', { id: string; invoice: string; attempts: number; error: string; next_attempt_at: string; failed_at: string }>;
export type CreditNoteVoided = DomainEvent<'credit_note.voided', { id: string; invoice: string; voided_at: string }>;

export type InvoiceEvent =
  | InvoiceCreated
  | InvoiceIssued
  | InvoiceIssuanceFailed
  | InvoicePaymentRecorded
  | InvoicePaid
  | InvoiceVoided
  | InvoiceCredited
  | InvoiceCreditReversed
  | CreditNoteCreated
  | CreditNoteIssued
  | CreditNoteIssuanceFailed
  | CreditNoteVoided;
