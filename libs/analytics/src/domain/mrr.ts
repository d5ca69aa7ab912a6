import { type Currency, Money, currency as currencyOf, formatAmount } from '#shared/money.js';
import type { BillingPeriod } from '#catalog/domain/price.decider.js';
import { type Discount, type Item, priceLine, totals } from '#collections/domain/pricing.js';
import { type SubscriptionDiscount, type SubscriptionFields, type SubscriptionStatus, discountsForNextCollection } from '#subscriptions/domain/subscription.decider.js';

/**
 * Monthly recurring revenue of one subscription (docs/revenue-analytics.md says the same in words):
 * what one cycle bills for its recurring lines, after the discounts in force, normalised to a month
 * (daily × 365/12, weekly × 52/12, monthly ÷ interval, yearly ÷ 12 × interval), rounded half-up to
 * the currency's minor unit. Lines priced in another currency are converted at the rate stored with
 * the subscription's latest collection; one-time lines and taxes are not recurring revenue.
 */

/** Statuses whose MRR counts (a subscription that pays, or is being asked to). */
export const COUNTED_STATUSES: ReadonlySet<SubscriptionStatus> = new Set(['active', 'past_due', 'pending_cancel']);
/** Statuses in which a subscription has churned: it stopped paying (canceled, ended, expired or unpaid). */
export const CHURN_STATUSES: ReadonlySet<SubscriptionStatus> = new Set(['canceled', 'ended', 'expired', 'unpaid']);
/** Statuses from which a next renewal is expected at `next_renewal_date`. */
export const RENEWING_STATUSES: ReadonlySet<SubscriptionStatus> = new Set(['active', 'trialing', 'past_due', 'pending_cancel']);

/** Months per cycle of `interval` periods, as the factor a cycle's amount is multiplied by to make a month's. */
export function monthlyFactor(period: BillingPeriod, interval: number): Money {
  const n = Math.max(1, interval);
  switch (period) {
    case 'day':
      return new Money(365).div(12).div(n);
    case 'week':
      return new Money(52).div(12).div(n);
    case 'month':
      return new Money(1).div(n);
    case 'year':
      return new Money(1).div(12 * n);
  }
}

/** Rates from a line's currency to the subscription's: `{ USD: '4012.35' }` (1 USD = 4012.35 in the subscription's currency). */
export type RatesTo = Record<string, string>;

/** Discounts in force during the current period (cycle `collections_count`), or for the first cycle before any was collected. */
export function discountsInForce(f: SubscriptionFields): SubscriptionDiscount[] {
  if (f.collections_count === 0) return discountsForNextCollection(f);
  return f.discounts.filter((d) => d.duration_in_collections === null || f.collections_count <= d.duration_in_collections);
}

/**
 * What one cycle of the recurring lines bills after `discounts`, in the subscription's currency; null
 * when a line's currency has no known rate yet (its first collection will store one).
 */
export function cycleAmount(f: SubscriptionFields, rates: RatesTo, discounts: readonly Discount[]): Money | null {
  const cur = currencyOf(f.currency);
  if (!cur) return null;
  const items: Item[] = [];
  for (const item of f.items) {
    if (item.price.type !== 'recurring') continue;
    const from = item.price.currency;
    let rate = null;
    if (from && from.toUpperCase() !== cur.code) {
      const known = rates[from.toUpperCase()];
      if (!known) return null;
      rate = { from, to: cur.code, rate: known, as_of: '', source: '' };
    }
    items.push(priceLine({ id: item.id, price: item.price, product: item.product, quantity: item.quantity, amount: item.amount, rate }, cur));
  }
  return new Money(totals(items, [...discounts], cur).total);
}

/** The subscription's MRR in its currency while it counts (whatever its status), or null when it cannot be priced yet. */
export function monthlyAmount(f: SubscriptionFields, rates: RatesTo): string | null {
  const cur = currencyOf(f.currency);
  const cycle = cycleAmount(f, rates, discountsInForce(f));
  if (!cur || cycle === null) return null;
  return formatAmount(cycle.times(monthlyFactor(f.billing_period, f.billing_interval)), cur);
}

/** What the next renewal will bill (its discounts), or null when it cannot be priced yet. */
export function nextRenewalAmount(f: SubscriptionFields, rates: RatesTo): string | null {
  const cur = currencyOf(f.currency);
  const cycle = cycleAmount(f, rates, discountsForNextCollection(f));
  return !cur || cycle === null ? null : formatAmount(cycle, cur);
}

export function currencyOrNull(code: string): Currency | null {
  return currencyOf(code);
}
