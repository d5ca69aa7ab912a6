/** Rules and event builders several decide functions share. */
import { type CollectionFields, type CollectionState, DEFAULT_RETRY_SCHEDULE, dunningDate } from './collection.state.js';
import type { CollectionPaid, CollectionPaymentFailed, Ref } from './collection.events.js';
import type { CreateCollectionInput } from './collection.commands.js';
import { type Currency, Money, decimalPlaces, formatAmount, isDecimalString } from '#shared/money.js';
import { type Discount, type LineInput, priceLine, totals } from '../pricing.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import type { ExchangeRate } from '../../exchange-rates/exchange-rates.port.js';

/** The 409 for an operation the collection's state does not allow; the message names the state. */
export const refusedInState = (what: string, id: string, status: string, code = 'invalid_state') =>
  new DomainError(code, `Cannot ${what} collection ${id}: its status is ${status}`, null, 409);

/** Lines priced, discounts applied, rates kept: what a collection's money fields are. */
export function priceCollection(lines: LineInput[], discounts: Discount[], cur: Currency) {
  lines.forEach((l, i) => {
    const from = l.price.currency.toUpperCase();
    if (from !== cur.code && (!l.rate || l.rate.from !== from || l.rate.to !== cur.code)) {
      throw new DomainError('currency_conversion_unavailable', `No exchange rate from ${from} to ${cur.code} was given for items[${i}]`, `items[${i}][price]`, 400);
    }
  });
  const items = lines.map((l) => priceLine(l, cur));
  const t = totals(items, discounts, cur);
  const rates = new Map<string, ExchangeRate>();
  for (const l of lines) if (l.rate && !rates.has(`${l.rate.from}:${l.rate.to}`)) rates.set(`${l.rate.from}:${l.rate.to}`, l.rate);
  return { items, discounts, subtotal: t.subtotal, total: t.total, discount_amounts: t.discount_amounts, exchange_rates: [...rates.values()] };
}

/** Checks discounts: a code, and exactly one of `amount` (in the collection's currency) or `percent` (0–100]. */
export function checkDiscounts(discounts: Discount[], cur: Currency, param = 'discounts'): void {
  if (!Array.isArray(discounts)) throw invalidParam(param, `${param} must be an array`);
  if (discounts.length > 20) throw invalidParam(param, `${param} can have at most 20 entries`);
  discounts.forEach((d, i) => {
    const p = `${param}[${i}]`;
    if (typeof d.code !== 'string' || d.code.trim().length === 0 || d.code.length > 100) throw invalidParam(`${p}[code]`, `${p}[code] must be 1 to 100 characters long`);
    if ((d.amount === null) === (d.percent === null)) throw invalidParam(p, `${p} needs exactly one of amount or percent`);
    if (d.amount !== null) {
      if (!isDecimalString(d.amount) || new Money(d.amount).lte(0)) throw invalidParam(`${p}[amount]`, `${p}[amount] must be a positive decimal amount`);
      if (decimalPlaces(d.amount) > cur.exponent) throw invalidParam(`${p}[amount]`, `${p}[amount] has more decimals than ${cur.code} allows (${cur.exponent})`);
    }
    if (d.percent !== null && (!isDecimalString(d.percent) || new Money(d.percent).lte(0) || new Money(d.percent).gt(100))) {
      throw invalidParam(`${p}[percent]`, `${p}[percent] must be a decimal greater than 0 and at most 100`);
    }
  });
}

export const normalizeDiscount = (d: Discount, cur: Currency): Discount => ({
  id: d.id,
  code: d.code.trim(),
  amount: d.amount === null ? null : formatAmount(d.amount, cur),
  percent: d.percent === null ? null : new Money(d.percent).toFixed(),
});

export function ref(state: CollectionState, id: string): Ref {
  return { id, subscription: state.fields!.subscription, customer: state.fields!.customer };
}

export function paidEvent(
  state: CollectionState,
  id: string,
  now: string,
  extra: Partial<CollectionPaid['data']>,
): CollectionPaid {
  return {
    type: 'collection.paid',
    data: {
      ...ref(state, id),
      paid_date: now,
      transaction: null,
      charge: null,
      payment_method: null,
      payment_method_gateway: null,
      payment_method_type: null,
      paid_out_of_band: false,
      out_of_band_proof: null,
      saved_payment_method: null,
      meta_data: state.fields!.meta_data,
      ...extra,
    },
  };
}

/** A positive amount with at most the currency's digits, or 400 naming `param`. */
export function checkAmount(value: string, cur: Currency, param: string): Money {
  if (!isDecimalString(value) || new Money(value).lte(0)) throw invalidParam(param, `${param} must be a positive decimal amount`);
  if (decimalPlaces(value) > cur.exponent) throw invalidParam(param, `${param} has more decimals than ${cur.code} allows (${cur.exponent})`);
  return new Money(value);
}

/** Why a collection's total is not its items' and discounts' any more (null when it is). */
export function totalSetDirectly(f: CollectionFields): string | null {
  if (f.items === null) return 'it has no items';
  if (f.partial_payment) return 'a partial payment is defined on it';
  if (new Money(f.amount_applied ?? '0').gt(0)) return 'a registered payment was applied to it';
  if ((f.credit_notes ?? []).length > 0) return 'a credit note was applied to it';
  return null;
}

export type NewCollectionInput = Pick<
  CreateCollectionInput,
  'customer' | 'subscription' | 'description' | 'meta_data' | 'invoice_settings' | 'invoice_retentions' | 'collection_rule_id' | 'collection_method' | 'billing_reason' | 'checkout_url' | 'test_clock' | 'retry_schedule'
>;
export type CollectionMoney = Pick<CollectionFields, 'items' | 'discounts' | 'subtotal' | 'total' | 'exchange_rates' | 'discount_amounts'>;

/** A new collection's fields: pending, nothing attempted, its money as given. */
export function newCollectionFields(input: NewCollectionInput, cur: Currency, money: CollectionMoney, due_date: string | null, extra: Partial<CollectionFields> = {}): CollectionFields {
  return {
    items: money.items,
    discounts: money.discounts,
    description: input.description,
    subtotal: money.subtotal,
    total: money.total,
    status: 'pending',
    currency: cur.code,
    paid_date: null,
    voided_at_date: null,
    due_date,
    next_collection_attempt_date: null,
    collection_method: input.collection_method,
    collection_rule_id: input.collection_rule_id,
    type: 'invoice',
    meta_data: input.meta_data,
    payment_settings: null,
    invoice_settings: input.invoice_settings,
    invoice_retentions: input.invoice_retentions,
    collection_attempts: 0,
    collecting: false,
    payment_method_gateway: null,
    payment_method_type: null,
    paid_out_of_band: false,
    out_of_band_proof: null,
    customer: input.customer.id,
    billing_address: input.customer.billing_address,
    subscription: input.subscription,
    invoice: null,
    invoice_number: null,
    checkout_url: input.checkout_url,
    invoices: [],
    additional_data: null,
    payment_method: null,
    latest_transaction: null,
    amount_refunded: formatAmount('0', cur),
    exchange_rates: money.exchange_rates,
    discount_amounts: money.discount_amounts,
    billing_reason: input.billing_reason,
    test_clock: input.test_clock ?? null,
    retry_schedule: input.retry_schedule ?? DEFAULT_RETRY_SCHEDULE,
    dunning_step: 0,
    partial_payment: null,
    balance_of: null,
    amount_applied: formatAmount('0', cur),
    paid_by: null,
    applied_to: null,
    ...extra,
  };
}

export function paymentFailed(
  state: CollectionState,
  id: string,
  transaction: string | null,
  charge: string | null,
  o: { failure_code: string; failure_message: string; decline_code: string | null },
): CollectionPaymentFailed {
  const f = state.fields!;
  // A failed retry of a past-due collection uses up a dunning step; the next date follows the schedule.
  const dunning = f.status === 'past_due' ? { dunning_step: f.dunning_step + 1, next_collection_attempt_date: dunningDate(f, f.dunning_step + 1) } : {};
  return {
    type: 'collection.payment_failed',
    data: {
      ...ref(state, id),
      transaction,
      charge,
      failure_code: o.failure_code,
      failure_message: o.failure_message,
      decline_code: o.decline_code,
      meta_data: f.meta_data,
      ...dunning,
    },
  };
}
