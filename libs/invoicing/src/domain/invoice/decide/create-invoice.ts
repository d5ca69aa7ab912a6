import type { InvoiceEvent } from '../invoice.events.js';
import type { InvoiceState } from '../invoice.state.js';
import type { InvoiceCommandOf } from '../invoice.commands.js';
import { invalidParam, invalidState, missingParam } from '#shared/errors.js';
import { Money, currency as currencyOf, formatAmount, isDecimalString } from '#shared/money.js';
import { checkMetaData } from '#shared/meta-data.js';
import { invoiceAmounts } from '../../invoice-amounts.js';
import { checkAmount } from '../invoice.rules.js';
import { type InvoiceFields, invoiceDocumentSettings } from '../invoice.state.js';

/**
 * An invoice for a collection (its fiscal issuance pending: the provider is called next) or an
 * uploaded one (issued elsewhere: number, dates and figures as given, nothing to issue).
 */
export function decideCreateInvoice(command: InvoiceCommandOf<'CreateInvoice'>, state: InvoiceState): InvoiceEvent[] {
  if (state.exists) throw invalidState(`Invoice ${command.invoiceId} already exists`);
  const input = command.input;
  const cur = currencyOf(input.currency);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${input.currency})`);
  checkMetaData(input.meta_data);
  const now = command.now.toISOString();
  let fields: InvoiceFields;
  const common = {
    source: input.source,
    customer: input.customer,
    subscription: input.subscription,
    collection: input.collection,
    currency: cur.code,
    retention_rates: input.retention_rates,
    invoice_settings: invoiceDocumentSettings(input.invoice_settings),
    total_paid: formatAmount('0', cur),
    amount_credited: formatAmount('0', cur),
    due_date: input.due_date,
    payments: [],
    credit_notes: [],
    voided_at: null,
    paid_at: null,
    meta_data: input.meta_data,
    test_clock: input.test_clock,
    status: 'open' as const,
  };
  if (input.uploaded) {
    const u = input.uploaded;
    if (typeof u.number !== 'string' || u.number.trim().length === 0 || u.number.length > 50) throw invalidParam('number', 'number must be 1 to 50 characters long');
    const total = checkAmount(u.total, cur, 'total');
    for (const p of ['subtotal', 'tax_total'] as const) {
      if (!isDecimalString(u[p]) || new Money(u[p]).lt(0)) throw invalidParam(p, `${p} must be a decimal amount of 0 or more`);
    }
    if (!new Money(u.subtotal).plus(u.tax_total).eq(total)) throw invalidParam('total', `total must be subtotal + tax_total (${formatAmount(new Money(u.subtotal).plus(u.tax_total), cur)})`);
    if (!input.due_date) throw missingParam('due_date', 'due_date is required');
    fields = {
      ...common,
      number: u.number.trim(),
      lines: [],
      subtotal: formatAmount(u.subtotal, cur),
      tax_total: formatAmount(u.tax_total, cur),
      total: formatAmount(total, cur),
      retentions: [],
      retention_total: formatAmount('0', cur),
      amount_due: formatAmount(total, cur),
      issue_date: u.issue_date,
      issuance: { status: 'external', attempts: 0, last_error: null, next_attempt_at: null },
      fiscal: u.pdf_url ? { provider: 'external', cufe: null, pdf_url: u.pdf_url, xml_url: null, issued_at: u.issue_date } : null,
    };
  } else {
    if (input.lines.length === 0) throw missingParam('lines', 'An invoice needs at least one line');
    const amounts = invoiceAmounts(input.lines, input.retention_rates, cur);
    fields = {
      ...common,
      ...amounts,
      number: null,
      amount_due: amounts.total,
      issue_date: null,
      issuance: { status: 'pending', attempts: 0, last_error: null, next_attempt_at: null },
      fiscal: null,
    };
  }
  return [{ type: 'invoice.created', data: { id: command.invoiceId, account_id: command.owner.accountId, is_test: command.owner.mode === 'test', created_at: now, ...fields } }];
}
