import type { BillingPeriod } from '#catalog/domain/price.decider.js';

const DAY_MS = 86_400_000;

/**
 * The end of cycle `n` counted from `anchor`: anchor + n × interval periods, computed from the anchor
 * each time (never from the previous date), so a subscription anchored on the 31st renews on the last
 * day of shorter months and on the 31st again after them. Time of day is kept; all UTC.
 */
export function cycleBoundary(anchor: Date, period: BillingPeriod, interval: number, n: number): Date {
  const steps = interval * n;
  switch (period) {
    // Whole days in milliseconds: date-fns' addDays/addWeeks work in the host's local time and
    // would move the UTC time of day across a daylight-saving change.
    case 'day':
      return new Date(anchor.getTime() + steps * DAY_MS);
    case 'week':
      return new Date(anchor.getTime() + steps * 7 * DAY_MS);
    case 'month':
      return utcAddMonths(anchor, steps);
    case 'year':
      return utcAddMonths(anchor, steps * 12);
  }
}

/** date-fns' addMonths works in local time; do it on the UTC calendar so the anchor day is UTC's. */
function utcAddMonths(date: Date, months: number): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const targetYear = y + Math.floor(m / 12);
  const targetMonth = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  const day = Math.min(date.getUTCDate(), lastDay);
  return new Date(Date.UTC(targetYear, targetMonth, day, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()));
}
