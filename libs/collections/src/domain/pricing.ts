import { invalidParam } from '#shared/errors.js';
import { type Currency, Money, formatAmount, isDecimalString } from '#shared/money.js';
import type { PriceFields } from '#catalog/domain/price.decider.js';
import type { ExchangeRate } from '../exchange-rates/exchange-rates.port.js';

/** A price as the collection needs it (a snapshot of the public price object). */
export type PriceSnapshot = PriceFields & { id: string; object?: string; [key: string]: unknown };
/** A product as the collection shows it on an item. */
export type ProductSnapshot = { id: string; name: string; [key: string]: unknown };

/** One line to bill: a price, a quantity, and what the decider needs to price it. */
export interface LineInput {
  id: string;
  price: PriceSnapshot;
  product: ProductSnapshot;
  quantity: number;
  /** `ntp` only: the amount the customer chose (in the price's currency). */
  amount?: string | null;
  /** Trial: a recurring line billed at 0. */
  free?: boolean;
  /** Rate from the price's currency to the collection's; null when they are the same. */
  rate: ExchangeRate | null;
}

/** The spec's Item as it appears on a collection. */
export interface Item {
  id: string;
  name: string;
  unit_price: string;
  subtotal: string;
  total: string;
  quantity: number;
  product: ProductSnapshot;
  price: PriceSnapshot;
  /** `ntp` only: the chosen amount, in the price's currency. */
  amount?: string | null;
}

/** The spec's Discount on a collection. Exactly one of `amount` / `percent` is set. */
export interface Discount {
  id: string;
  code: string;
  amount: string | null;
  percent: string | null;
}

/** Price of `quantity` units in the price's own currency, unrounded. */
export function linePrice(price: PriceSnapshot, quantity: number, amount?: string | null): Money {
  switch (price.pricing_model) {
    case 'standard':
      return new Money(price.unit_price ?? '0').times(quantity);
    case 'ntp':
      return new Money(amount ?? price.ntp_pricing?.suggested_amount ?? '0').times(quantity);
    case 'volume': {
      // The tier that holds the whole quantity prices every unit (plus its flat fee).
      const tiers = price.pricing_tiers?.tiers ?? [];
      const tier = tiers.find((t) => t.up_to === null || quantity <= t.up_to) ?? tiers[tiers.length - 1];
      if (!tier || quantity === 0) return new Money(0);
      return new Money(tier.unit_price).times(quantity).plus(tier.flat_price ?? '0');
    }
    case 'graduated': {
      // Each tier prices the units that fall inside it (plus its flat fee when any unit does).
      let total = new Money(0);
      let floor = 0;
      for (const tier of price.pricing_tiers?.tiers ?? []) {
        if (quantity <= floor) break;
        const ceiling = tier.up_to === null ? quantity : Math.min(quantity, tier.up_to);
        const units = ceiling - floor;
        if (units > 0) total = total.plus(new Money(tier.unit_price).times(units)).plus(tier.flat_price ?? '0');
        floor = ceiling;
      }
      return total;
    }
  }
}

/** Checks an `ntp` amount against the price's limits. */
export function checkNtpAmount(price: PriceSnapshot, amount: string | null | undefined, param: string): void {
  if (price.pricing_model !== 'ntp') {
    if (amount !== undefined && amount !== null) throw invalidParam(param, `${param} is only allowed with an ntp price`);
    return;
  }
  const chosen = amount ?? price.ntp_pricing?.suggested_amount ?? null;
  if (chosen === null) throw invalidParam(param, `${param} is required: price ${price.id} lets the customer choose the amount`);
  if (!isDecimalString(chosen)) throw invalidParam(param, `${param} must be a decimal amount such as "50000.00"`);
  const value = new Money(chosen);
  if (value.lte(0)) throw invalidParam(param, `${param} must be greater than 0`);
  const { min_amount, max_amount } = price.ntp_pricing ?? { min_amount: null, max_amount: null };
  if (min_amount !== null && value.lt(min_amount)) throw invalidParam(param, `${param} must be at least ${min_amount}`);
  if (max_amount !== null && value.gt(max_amount)) throw invalidParam(param, `${param} must be at most ${max_amount}`);
}

/**
 * Prices a line in the collection's currency: the price's amount, converted at the line's rate,
 * rounded half-up to the currency's minor unit once per line. `unit_price` is the line's subtotal
 * divided by its quantity (the effective unit price for tiered models), rounded the same way.
 */
export function priceLine(line: LineInput, cur: Currency): Item {
  const raw = line.free ? new Money(0) : linePrice(line.price, line.quantity, line.amount);
  const converted = line.rate ? raw.times(line.rate.rate) : raw;
  const subtotal = formatAmount(converted, cur);
  const unit = line.quantity > 0 ? new Money(subtotal).div(line.quantity) : new Money(0);
  const item: Item = {
    id: line.id,
    name: line.product.name,
    unit_price: formatAmount(unit, cur),
    subtotal,
    total: subtotal,
    quantity: line.quantity,
    product: line.product,
    price: line.price,
  };
  if (line.price.pricing_model === 'ntp') item.amount = line.amount ?? line.price.ntp_pricing?.suggested_amount ?? null;
  return item;
}

export interface Totals {
  subtotal: string;
  total: string;
  /** What each discount took off, by discount id. */
  discount_amounts: Record<string, string>;
}

/**
 * subtotal = Σ item subtotals. Discounts apply in order to what is left: an `amount` discount takes
 * its amount, a `percent` discount takes that share of the subtotal rounded half-up to the minor unit;
 * the total never goes below 0. `items` null (a collection without items) counts as [].
 */
export function totals(items: Item[] | null, discounts: Discount[], cur: Currency): Totals {
  // A collection without items (null) has nothing to sum: its total is set directly.
  const subtotal = (items ?? []).reduce((sum, i) => sum.plus(i.subtotal), new Money(0));
  let remaining = subtotal;
  const discount_amounts: Record<string, string> = {};
  for (const d of discounts) {
    const wanted = d.amount !== null ? new Money(d.amount) : new Money(formatAmount(subtotal.times(d.percent ?? '0').div(100), cur));
    const taken = Money.min(wanted, remaining);
    remaining = remaining.minus(taken);
    discount_amounts[d.id] = formatAmount(taken, cur);
  }
  return { subtotal: formatAmount(subtotal, cur), total: formatAmount(remaining, cur), discount_amounts };
}
