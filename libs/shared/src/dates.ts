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
