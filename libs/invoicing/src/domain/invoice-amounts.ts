import { type Currency, Money, formatAmount } from '#shared/money.js';
import { RETENTION_TYPES, type RetentionType, retentionOf } from '#shared/retentions.js';

export { RETENTION_TYPES, type RetentionType };

/** A line of a fiscal invoice: what was sold, its amount (taxes included) and the tax the product names. */
export interface InvoiceLineInput {
  description: string;
  quantity: number;
  /** The line's total, taxes included (collection lines are priced tax-inclusive). */
  amount: string;
  /** From the product's `invoice_settings`: the tax identifier (e.g. `01` IVA) and its rate in percent. */
  tax_id: string | null;
  tax_percentage: string | null;
}

export interface InvoiceLine extends InvoiceLineInput {
  /** The taxable base: amount ÷ (1 + rate). */
  base: string;
  tax_amount: string;
}

/** Withholding rates, each in its unit (libs/shared/src/retentions.ts): reteica per thousand (‰), reteiva and retefte percent; null: not withheld. */
export type RetentionRates = Partial<Record<RetentionType, string | null>>;

export interface RetentionLine {
  type: RetentionType;
  /** In the type's unit: per thousand for reteica, percent for the others. */
  rate: string;
  /** reteiva: on the tax total; reteica and retefte: on the taxable base. */
  base: string;
  amount: string;
}

export interface InvoiceAmounts {
  lines: InvoiceLine[];
  /** Σ bases (before taxes). */
  subtotal: string;
  tax_total: string;
  /** Σ line amounts: what the customer is invoiced (taxes included). */
  total: string;
  retentions: RetentionLine[];
  /** What the customer withholds (informative: see docs/decisions/0038-withholdings.md). */
  retention_total: string;
}

/**
 * The fiscal figures of an invoice, rounded half-up to the currency once per line: each line's tax
 * is carved out of its tax-inclusive amount (base = amount ÷ (1 + rate/100)); withholdings apply
 * their rate to the tax total (ReteIVA, percent) or to the taxable base (ReteICA per thousand,
 * ReteFuente percent), rounded half-up to the currency's minor unit.
 */
export function invoiceAmounts(input: InvoiceLineInput[], rates: RetentionRates, cur: Currency): InvoiceAmounts {
  const lines = input.map((l) => {
    const amount = new Money(l.amount);
    const pct = l.tax_percentage ? new Money(l.tax_percentage) : new Money(0);
    const base = pct.isZero() ? amount : amount.div(pct.div(100).plus(1)).toDecimalPlaces(cur.exponent, Money.ROUND_HALF_UP);
    return { ...l, amount: formatAmount(amount, cur), base: formatAmount(base, cur), tax_amount: formatAmount(amount.minus(base), cur) };
  });
  const sum = (xs: string[]) => xs.reduce((s, x) => s.plus(x), new Money(0));
  const subtotal = sum(lines.map((l) => l.base));
  const tax = sum(lines.map((l) => l.tax_amount));
  const retentions: RetentionLine[] = [];
  for (const type of RETENTION_TYPES) {
    const rate = rates[type];
    if (rate === null || rate === undefined || new Money(rate).lte(0)) continue;
    const base = type === 'reteiva' ? tax : subtotal;
    const amount = retentionOf(type, rate, base).toDecimalPlaces(cur.exponent, Money.ROUND_HALF_UP);
    retentions.push({ type, rate: new Money(rate).toFixed(), base: formatAmount(base, cur), amount: formatAmount(amount, cur) });
  }
  return {
    lines,
    subtotal: formatAmount(subtotal, cur),
    tax_total: formatAmount(tax, cur),
    total: formatAmount(sum(lines.map((l) => l.amount)), cur),
    retentions,
    retention_total: formatAmount(sum(retentions.map((r) => r.amount)), cur),
  };
}
