import { currency as currencyOf, Money } from '#shared/money.js';
import { ACCOUNT_TIME_ZONE } from '#shared/dates.js';
import type { Locale } from './i18n.js';

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** An Intl number format of the page's language, made once per options (making one costs far more than using it). */
export function numberFormat(locale: Locale, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(locale === 'en' ? 'en-US' : 'es-CO', options)));
  return format;
}

/** An Intl date format of the page's language, made once per options. */
export function dateTimeFormat(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let format = dateTimeFormats.get(key);
  if (!format) dateTimeFormats.set(key, (format = new Intl.DateTimeFormat(locale === 'en' ? 'en-US' : 'es-CO', options)));
  return format;
}

/**
 * Amounts as a person reads them, from the decimal string (never a float): Colombian conventions by
 * default — `$ 49.900` for COP 49900.00, `$ 49.900,50` when there are cents — and the currency's
 * own symbol for others (`US$ 10,50`). Minor units are shown only when they are not zero.
 */
export function formatMoney(amount: string, currencyCode: string, locale: Locale): string {
  const cur = currencyOf(currencyCode);
  const exponent = cur?.exponent ?? 2;
  const value = new Money(amount).toFixed(exponent, Money.ROUND_HALF_UP);
  const whole = new Money(value).isInteger();
  const format = numberFormat(locale, {
    style: 'currency',
    currency: cur?.code ?? currencyCode.toUpperCase(),
    minimumFractionDigits: whole ? 0 : exponent,
    maximumFractionDigits: exponent,
  });
  // Intl formats a decimal string exactly (no conversion to a float).
  return format.format(value as unknown as number).replace(/\u00a0/g, ' ');
}

/**
 * A date (ISO 8601) as `23 de noviembre de 2026` / `November 23, 2026`: the calendar day that holds
 * it in the account's zone (Bogotá), so a due date (the last millisecond of its day there) shows its
 * own day; `short` (a list's cells, where columns compete for a laptop's width) as `23 de nov de
 * 2026` / `Nov 23, 2026`.
 */
export function formatDate(iso: string | null | undefined, locale: Locale, length: 'long' | 'short' = 'long'): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const style: Intl.DateTimeFormatOptions = length === 'long' ? { dateStyle: 'long' } : { day: 'numeric', month: 'short', year: 'numeric' };
  return dateTimeFormat(locale, { ...style, timeZone: ACCOUNT_TIME_ZONE }).format(date);
}

/** A timestamp (ISO 8601 with a time) as `23 de noviembre de 2026 a las 5:00 a. m.` / `November 23, 2026 at 5:00 AM`, in Bogotá time. */
export function formatDateTime(iso: string | null | undefined, locale: Locale): string {
  if (!iso || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(iso)) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return dateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: ACCOUNT_TIME_ZONE })
    .format(date)
    .replace(/[\u00a0\u202f]/g, ' ');
}

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', american_express: 'American Express', diners: 'Diners Club', diners_club: 'Diners Club', discover: 'Discover', jcb: 'JCB', unionpay: 'UnionPay', maestro: 'Maestro', codensa: 'Codensa' };

/** A card brand as people write it (`visa` → `Visa`, `mastercard` → `Mastercard`); an unknown one capitalised. */
export function cardBrand(brand: string | null | undefined): string {
  if (!brand) return '';
  const key = brand.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (BRANDS[key]) return BRANDS[key];
  // A method's own name (`wallet_a`) is left as it is.
  return key.includes('_') ? brand.trim() : brand.trim().charAt(0).toUpperCase() + brand.trim().slice(1);
}
