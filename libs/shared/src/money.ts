import { Decimal } from 'decimal.js';
import currencyCodes from 'currency-codes';

/** Money is a decimal inside, a string on the wire; never a float. */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Money = Decimal;

export interface Currency {
  code: string;
  /** Minor-unit exponent (ISO 4217): COP 2, JPY 0, KWD 3. */
  exponent: number;
}

/**
 * ISO 4217 codes that are not money a customer can be charged in: no currency (XXX), testing (XTS),
 * precious metals (XAU, XAG, XPT, XPD), bond-market and other units of account (XBA–XBD, XDR, XSU,
 * XUA), and the fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW). See docs/decisions/0016-input-refused.md.
 */
export const NON_MONEY_CURRENCIES: ReadonlySet<string> = new Set([
  'XXX', 'XTS', 'XAU', 'XAG', 'XPT', 'XPD', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XSU', 'XUA',
  'BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW',
]);

/**
 * currency() by code, looked up once: the table lookup (a scan of ISO 4217) cost a few µs a call,
 * and money is formatted many times per event (deciders, projections). At most 26³ three-letter keys.
 */
const currencyByCode = new Map<string, Currency | null>();

/** ISO 4217 currency by code (upper or lower case), or null when unknown or not money (NON_MONEY_CURRENCIES). */
export function currency(code: string): Currency | null {
  if (typeof code !== 'string') return null;
  let found = currencyByCode.get(code);
  if (found === undefined) {
    if (!/^[A-Za-z]{3}$/.test(code)) return null;
    found = lookUpCurrency(code);
    currencyByCode.set(code, found);
  }
  // A copy: callers own what they are given.
  return found && { code: found.code, exponent: found.exponent };
}

function lookUpCurrency(code: string): Currency | null {
  if (NON_MONEY_CURRENCIES.has(code.toUpperCase())) return null;
  const entry = currencyCodes.code(code.toUpperCase());
  if (!entry || entry.digits === undefined || entry.digits === null) return null;
  return { code: entry.code, exponent: Number(entry.digits) };
}

const DECIMAL = /^-?\d{1,20}(\.\d{1,20})?$/;

/** True when `value` is a plain decimal string ("1500", "1500.50"); no exponents, no spaces. */
export function isDecimalString(value: unknown): value is string {
  return typeof value === 'string' && DECIMAL.test(value);
}

export function parseDecimal(value: string): Money {
  if (!isDecimalString(value)) throw new Error(`not a decimal string: ${value}`);
  return new Money(value);
}

/** Number of decimal places written in a decimal string. */
export function decimalPlaces(value: string): number {
  const dot = value.indexOf('.');
  return dot === -1 ? 0 : value.length - dot - 1;
}

/** The amount as a string with exactly the currency's minor-unit digits ("15000.00" for COP). */
export function formatAmount(amount: Money | string, cur: Currency): string {
  return new Money(amount).toFixed(cur.exponent, Money.ROUND_HALF_UP);
}

/** A percentage string ("19", "19.5") normalised without trailing zeros. */
export function formatDecimal(value: Money | string): string {
  return new Money(value).toFixed();
}
