import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import type { MetaData } from '#shared/meta-data.js';
import { currency as currencyOf, decimalPlaces, formatAmount } from '#shared/money.js';
import { RETENTION_TYPES, checkRetentionRate } from '#shared/retentions.js';
import { type Discount, type PriceSnapshot, checkNtpAmount } from '#collections/domain/pricing.js';
import { CHECKOUT_INVOICE_SETTINGS, checkDiscounts, normalizeDiscount, type InvoiceSettings, type InvoiceRetentions } from '#collections/domain/collection.decider.js';
import { cycleBoundary } from '../billing-period.js';
import { type DiscountInput, type ItemInput, type ItemNaming, ITEMS_LIST, type PaymentMethodFacts, type SubscriptionChanges, type SubscriptionInput } from './subscription.commands.js';
import type { SubscriptionBase, SubscriptionResumed } from './subscription.events.js';
import { FINAL_STATES, type SubscriptionDiscount, type SubscriptionFields, type SubscriptionItem, type SubscriptionState, type SubscriptionStatus } from './subscription.state.js';

/** The spec's messages, word for word. */
export const MESSAGES = {
  daysUntilDueWithCharge: 'days_until_due is only allowed for collection_method charge',
  sameFrequency: 'All prices must have the same frequency (billing_period and billing_interval)',
  paymentMethodXorInformation: 'payment_method and payment_information are mutually exclusive; send only one',
  firstPaymentInvoicingCreateWithCharge: 'first_payment_invoicing create is not allowed with collection_method charge; only after is valid',
  paymentInformationWithSchedule: 'payment_information is not allowed with schedule_date',
  trialWithSchedule: 'trial_days cannot be combined with schedule_date',
} as const;

export const refusedInState = (what: string, id: string, status: string) =>
  new DomainError('invalid_state', `Cannot ${what} subscription ${id}: its status is ${status}`, null, 409);

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

export function checkInt(param: string, v: number | null | undefined, min: number, max: number) {
  if (v === undefined || v === null) return;
  if (!isInt(v, min, max)) throw invalidParam(param, `${param} must be an integer from ${min} to ${max}`);
}

export function parseDate(param: string, v: string): Date {
  const d = new Date(v);
  if (typeof v !== 'string' || Number.isNaN(d.getTime())) throw invalidParam(param, `${param} must be an ISO 8601 timestamp`);
  return d;
}

/** An ntp item's chosen amount written with its price currency's digits (more digits is an error); null otherwise. */
function ntpAmount(price: PriceSnapshot, amount: string | null | undefined, param: string): string | null {
  if (price.pricing_model !== 'ntp' || amount === null || amount === undefined) return null;
  const cur = currencyOf(price.currency)!;
  if (decimalPlaces(amount) > cur.exponent) throw invalidParam(param, `${param} has more decimals than ${cur.code} allows (${cur.exponent})`);
  return formatAmount(amount, cur);
}

/**
 * Applies an items patch to the current items and checks the result: at least one recurring item,
 * all recurring prices on one frequency, quantities, ntp amounts. Prices may be in another currency
 * (converted when a collection is made).
 */
export function applyItems(current: SubscriptionItem[], patch: ItemInput[], naming: ItemNaming = ITEMS_LIST): SubscriptionItem[] {
  const param = naming.whole;
  if (!Array.isArray(patch)) throw invalidParam(param, `${param} must be an array`);
  let items = [...current];
  patch.forEach((p, i) => {
    const at = (name: string) => naming.field(i, name);
    if (p.id !== undefined) {
      const idx = items.findIndex((it) => it.id === p.id);
      if (idx === -1) throw notFound('subscription item', p.id, at('id'));
      if (p.deleted) {
        items = items.filter((it) => it.id !== p.id);
        return;
      }
      const next = { ...items[idx] };
      if (p.price) {
        if (!p.price.active && p.price.id !== next.price.id) throw invalidParam(at('price'), `Price ${p.price.id} is not active`);
        next.price = p.price;
        next.product = p.product!;
        next.amount = p.price.pricing_model === 'ntp' ? p.price.ntp_pricing?.suggested_amount ?? null : null;
      }
      if (p.quantity !== undefined) next.quantity = p.quantity;
      if (p.amount !== undefined) next.amount = p.amount;
      checkInt(at('quantity'), next.quantity, 1, 1_000_000);
      checkNtpAmount(next.price, next.amount, at('amount'));
      next.amount = ntpAmount(next.price, next.amount, at('amount'));
      items[idx] = next;
      return;
    }
    if (p.deleted) throw invalidParam(at('deleted'), `${at('deleted')} needs ${at('id')}`);
    if (!p.price || !p.newId) throw missingParam(at('price'));
    const quantity = p.quantity ?? 1;
    checkInt(at('quantity'), quantity, 1, 1_000_000);
    checkNtpAmount(p.price, p.amount, at('amount'));
    if (!p.price.active) throw invalidParam(at('price'), `Price ${p.price.id} is not active`);
    items.push({ id: p.newId, price: p.price, product: p.product!, quantity, amount: ntpAmount(p.price, p.amount ?? p.price.ntp_pricing?.suggested_amount ?? null, at('amount')) });
  });
  if (items.length > 20) throw invalidParam(param, `${param} can have at most 20 items`);
  const recurring = items.filter((it) => it.price.type === 'recurring');
  if (recurring.length === 0) throw invalidParam(param, 'A subscription needs at least one recurring price');
  const first = recurring[0].price;
  if (recurring.some((it) => it.price.billing_period !== first.billing_period || it.price.billing_interval !== first.billing_interval)) {
    throw invalidParam(param, MESSAGES.sameFrequency);
  }
  return items;
}

export function buildDiscounts(input: DiscountInput[] | undefined, ids: string[], currency: string): SubscriptionDiscount[] {
  if (input === undefined) return [];
  const cur = currencyOf(currency)!;
  if (!Array.isArray(input)) throw invalidParam('discounts', 'discounts must be an array');
  const base: Discount[] = input.map((d, i) => ({ id: ids[i], code: d.code, amount: d.amount ?? null, percent: d.percent ?? null }));
  checkDiscounts(base, cur);
  return input.map((d, i) => {
    checkInt(`discounts[${i}][duration_in_collections]`, d.duration_in_collections, 1, 1000);
    return { ...normalizeDiscount(base[i], cur), duration_in_collections: d.duration_in_collections ?? null };
  });
}

/** The invoicing settings sent, over the previous ones (a checkout session's further provider parameters only when set). */
export const mergeInvoiceSettings = (s: Partial<InvoiceSettings> | undefined, prev?: InvoiceSettings): InvoiceSettings => {
  const out: InvoiceSettings = {
    invoice_document_id: s?.invoice_document_id ?? prev?.invoice_document_id ?? null,
    invoice_cost_center: s?.invoice_cost_center ?? prev?.invoice_cost_center ?? null,
  };
  // A checkout session's further provider parameters: kept only when one set them.
  for (const k of CHECKOUT_INVOICE_SETTINGS) {
    const v = s?.[k] ?? prev?.[k] ?? null;
    if (v !== null) out[k] = v;
  }
  return out;
};
/** The retentions sent, over the previous ones. */
export const mergeInvoiceRetentions = (r: Partial<InvoiceRetentions> | undefined, prev?: InvoiceRetentions): InvoiceRetentions => ({
  reteiva: r?.reteiva ?? prev?.reteiva ?? null,
  reteica: r?.reteica ?? prev?.reteica ?? null,
  retefte: r?.retefte ?? prev?.retefte ?? null,
});

/** reteica per thousand (‰), reteiva and retefte percent (libs/shared/src/retentions.ts). */
export function checkRetentions(r: Partial<InvoiceRetentions> | undefined) {
  for (const k of RETENTION_TYPES) checkRetentionRate(`invoice_retentions[${k}]`, k, r?.[k]);
}

/** The payment method a subscription will charge, per the spec's rule; null for `collect`. */
export function choosePaymentMethod(input: SubscriptionInput | SubscriptionChanges, facts: PaymentMethodFacts, method: 'charge' | 'collect'): string | null {
  if (method === 'collect') return null;
  if (input.payment_method) {
    if (!facts.requestedUsable) throw invalidParam('payment_method', `No such payment method for this customer: '${input.payment_method}'`);
    return input.payment_method;
  }
  return facts.customerDefault;
}

/** Discounts that still apply to the next collection (cycle `collections_count + 1`). */
export function discountsForNextCollection(f: SubscriptionFields, forTrial = false): SubscriptionDiscount[] {
  if (forTrial) return f.discounts;
  return f.discounts.filter((d) => d.duration_in_collections === null || f.collections_count < d.duration_in_collections);
}

/** When the committed periods end (null without a commitment): boundary `commitment_periods` from the anchor. */
export function commitmentEndOf(f: SubscriptionFields): Date | null {
  if (!f.commitment_periods || !f.billing_cycle_anchor) return null;
  return cycleBoundary(new Date(f.billing_cycle_anchor), f.billing_period, f.billing_interval, f.commitment_periods);
}

/** Back to active; a renewal date that passed during the pause moves to the next boundary after now (no back-billing). */
export function resumed(state: SubscriptionState, id: string, now: Date): SubscriptionResumed {
  const f = state.fields!;
  let cycle = f.cycle;
  let next = f.next_renewal_date;
  if (next && f.billing_cycle_anchor && Date.parse(next) <= now.getTime()) {
    const anchor = new Date(f.billing_cycle_anchor);
    while (cycleBoundary(anchor, f.billing_period, f.billing_interval, cycle).getTime() <= now.getTime()) cycle++;
    next = cycleBoundary(anchor, f.billing_period, f.billing_interval, cycle).toISOString();
  }
  return { type: 'subscription.resumed', data: { ...base(state, id, 'active'), resumed_at: now.toISOString(), next_renewal_date: next, cycle } };
}

export function base(state: SubscriptionState, id: string, status: SubscriptionStatus, meta?: MetaData): SubscriptionBase {
  return { id, customer: state.fields!.customer, status, meta_data: meta ?? state.fields!.meta_data };
}


/** Refused (409 naming the status) once the subscription is canceled, ended or expired. */
export function refuseFinal(what: string, id: string, f: SubscriptionFields): void {
  if (FINAL_STATES.includes(f.status)) throw refusedInState(what, id, f.status);
}
