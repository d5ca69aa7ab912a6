import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ACCOUNT_TIME_ZONE } from '#shared/dates.js';
import { currency as currencyOf, Money } from '#shared/money.js';
import type { Locale } from '#web/i18n.js';

/**
 * The dashboard's CSV files (the security log, every list's export): UTF-8 opened by a byte order mark
 * (Excel and LibreOffice then read accents right), lines ended by CRLF, and cells as a spreadsheet in
 * the page's language reads them: `;` between cells and a decimal comma in Spanish (es-CO), `,` and a
 * decimal point in English.
 */
export const CSV_BOM = '\uFEFF';

/** Spanish spreadsheets read `;` (the comma is their decimal separator); English ones `,`. */
export const csvSeparator = (locale: Locale): string => (locale === 'en' ? ',' : ';');

/** A plain number (`-5000,00`) is not a formula, whatever its sign. */
const PLAIN_NUMBER = /^-?\d+(?:[.,]\d+)?$/;

/**
 * A CSV cell: never read as a formula by a spreadsheet (a cell starting with = + - @, a tab or a
 * carriage return is prefixed with `'`, OWASP CSV injection), quoted when it holds the separator, a
 * quote or a line break, quotes doubled.
 */
export function csvCell(value: string, separator: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
  return safe.includes(separator) || /["\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A CSV line of `cells`, CRLF-ended. */
export const csvLine = (cells: string[], separator: string): string => `${cells.map((c) => csvCell(c, separator)).join(separator)}\r\n`;

/** An amount (a decimal string) with its currency's minor digits and no thousands separator: `49900,00` in es-CO, `49900.00` in English. */
export function csvAmount(amount: string, currencyCode: string | null | undefined, locale: Locale): string {
  const exponent = (currencyCode ? currencyOf(currencyCode)?.exponent : undefined) ?? 2;
  let fixed: string;
  try {
    fixed = new Money(amount).toFixed(exponent, Money.ROUND_HALF_UP);
  } catch {
    return amount;
  }
  return locale === 'en' ? fixed : fixed.replace('.', ',');
}

const BOGOTA = new Intl.DateTimeFormat('en-CA', { timeZone: ACCOUNT_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** A timestamp (ISO 8601, or the spec's UTC `created_date`) as `YYYY-MM-DD HH:mm` in the account's zone (Bogotá), which every spreadsheet reads as a date; a calendar day stays as it is. */
export function csvDateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return iso;
  // The spec's `created_date` (`YYYY-MM-DD HH:MM:SS`) is in UTC.
  const utc = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(iso) ? `${iso.replace(' ', 'T')}Z` : iso;
  const date = new Date(utc);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(utc) || Number.isNaN(date.getTime())) return iso;
  const p = Object.fromEntries(BOGOTA.formatToParts(date).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

/**
 * Answers with a CSV attachment streamed from `chunks` (the BOM and header first, then a chunk per page
 * read): nothing is held but the page being written, and a slow reader pauses the reading (the stream's
 * back-pressure).
 */
export function sendCsv(reply: FastifyReply, filename: string, chunks: AsyncIterable<string>) {
  reply
    .status(200)
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${filename}"`)
    .header('Cache-Control', 'no-store')
    .header('X-Content-Type-Options', 'nosniff');
  // One chunk read ahead at most: a slow download holds one page in memory, never the whole list.
  return reply.send(Readable.from(chunks, { highWaterMark: 1 }));
}
