import { formatISO9075 } from 'date-fns';

/** `YYYY-MM-DD HH:MM:SS` in UTC (the spec's `created_date`). */
export function formatCreatedDate(date: Date): string {
  // formatISO9075 formats in local time; shift so the UTC wall clock is printed.
  return formatISO9075(new Date(date.getTime() + date.getTimezoneOffset() * 60_000));
}

/** ISO 8601 with milliseconds, UTC (`2026-11-23T02:44:56.000Z`). */
export function formatTimestamp(date: Date): string {
  return date.toISOString();
}

/**
 * The time zone whose calendar days due dates name. Accounts have no time-zone setting: every
 * account is Colombian, so it is Bogotá's (UTC−5 all year). An account setting would be passed as
 * `zone` to the functions below.
 */
export const ACCOUNT_TIME_ZONE = 'America/Bogota';

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;
const dayFormats = new Map<string, Intl.DateTimeFormat>();

function dayFormat(zone: string): Intl.DateTimeFormat {
  let f = dayFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    dayFormats.set(zone, f);
  }
  return f;
}

/** The wall clock of `instant` in `zone`, read as if it were UTC (milliseconds). */
function wallClock(instant: number, zone: string): number {
  const p: Record<string, number> = {};
  for (const part of dayFormat(zone).formatToParts(new Date(instant))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) + (instant - Math.floor(instant / 1000) * 1000);
}

/** Is `value` a calendar date written `YYYY-MM-DD` (and a real one: no 2026-02-30)? */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DAY_RE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** The last answer of calendarDayOf, by zone and second: the events of one command share their instant. */
let lastDay: { zone: string; second: number; day: string } | null = null;

/** The calendar day (`YYYY-MM-DD`) that holds `instant` in `zone`. */
export function calendarDayOf(instant: Date | string, zone: string = ACCOUNT_TIME_ZONE): string {
  const t = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  const second = Math.floor(t / 1000);
  if (lastDay && lastDay.second === second && lastDay.zone === zone) return lastDay.day;
  const day = new Date(wallClock(t, zone)).toISOString().slice(0, 10);
  if (!Number.isNaN(second)) lastDay = { zone, second, day };
  return day;
}

/** `day` plus `days` calendar days (`2026-12-31` + 1 = `2027-01-01`). */
export function addCalendarDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The first instant of calendar day `day` in `zone` (its local midnight, whatever the zone's offset that day). */
export function startOfCalendarDay(day: string, zone: string = ACCOUNT_TIME_ZONE): Date {
  const [y, m, d] = day.split('-').map(Number);
  const midnight = Date.UTC(y, m - 1, d);
  // The instant whose wall clock is local midnight: correct the guess by the zone's offset, twice
  // (the offset at the guess may differ from the offset at the answer across a DST change).
  let t = midnight - (wallClock(midnight, zone) - midnight);
  t = midnight - (wallClock(t, zone) - t);
  // A zone that skips midnight (a DST change at 00:00): the day starts at its first existing instant.
  while (calendarDayOf(new Date(t), zone) < day) t += 3_600_000;
  return new Date(t);
}

/** The last millisecond of calendar day `day` in `zone` (23:59:59.999 local). */
export function endOfCalendarDay(day: string, zone: string = ACCOUNT_TIME_ZONE): Date {
  return new Date(startOfCalendarDay(addCalendarDays(day, 1), zone).getTime() - 1);
}

/**
 * A due date names a calendar day of the account's zone and the collection is due until the end of
 * it: the wire value is that day's last millisecond (`2026-12-31` in Bogotá → `2027-01-01T04:59:59.999Z`),
 * which every zone-aware formatter shows as that day.
 */
export function dueDateOfDay(day: string, zone: string = ACCOUNT_TIME_ZONE): string {
  return endOfCalendarDay(day, zone).toISOString();
}

/** The due date `days` calendar days after the day of `now` in `zone` (0: the end of today). */
export function dueDateAfterDays(now: Date, days: number, zone: string = ACCOUNT_TIME_ZONE): string {
  return dueDateOfDay(addCalendarDays(calendarDayOf(now, zone), days), zone);
}

/**
 * A due date as a client gives it: a date (`2026-12-31`) names that day; a timestamp names the day that
 * holds it in `zone`. Either way the answer is the end of the day. Null when `value` is neither.
 */
export function parseDueDate(value: unknown, zone: string = ACCOUNT_TIME_ZONE): string | null {
  if (isCalendarDay(value)) return dueDateOfDay(value, zone);
  if (typeof value !== 'string' || DAY_RE.test(value)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : dueDateOfDay(calendarDayOf(new Date(t), zone), zone);
}

/**
 * A date that starts something (an invoice's issue date, a range's lower bound): a date
 * (`2026-12-01`) is the first instant of that day in `zone`; a timestamp is kept as it is. Null when
 * `value` is neither.
 */
export function parseStartDate(value: unknown, zone: string = ACCOUNT_TIME_ZONE): string | null {
  if (isCalendarDay(value)) return startOfCalendarDay(value, zone).toISOString();
  if (typeof value !== 'string' || DAY_RE.test(value)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * Past due: the due date's instant has come. A calendar due date's instant is its day's last
 * millisecond, so the collection is in time all day long (until 23:59:59.998 local) and late from
 * then on; a collection due at once (a charge renewal) is late as soon as its attempt fails.
 */
export function isPastDue(dueDate: string, now: Date): boolean {
  return now.getTime() >= Date.parse(dueDate);
}
