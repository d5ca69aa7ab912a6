import { invalidParam } from '#shared/errors.js';
import { addCalendarDays, calendarDayOf, isCalendarDay } from '#shared/dates.js';
import { currency as currencyOf } from '#shared/money.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { Owner } from '#shared/owner.js';
import type { FeedEntry } from '#events/read-models/event.read-model.js';
import { periodsOf } from '../read-models/revenue-figures.js';
import type { ReportInterval, ReportParams } from '../read-models/revenue-report.js';

/** Most periods a report holds (three years and more by day). */
export const MAX_PERIODS = 1200;

export interface RawReportParams {
  from?: string;
  to?: string;
  interval?: string;
  as_of?: string;
  currency?: string;
}

/**
 * The report's params from what the caller gave (the API's query, the home page's form): `as_of`
 * an ISO 8601 instant or an `evt_` id (the moment it happened), now by default; `to` the day that
 * holds as_of by default; `from` a year of months (12 weeks, 30 days) before it; the settlement
 * currency COP. A 400 naming the param for anything else.
 */
export async function resolveReportParams(raw: RawReportParams, now: Date, owner: Owner, store: ReadStore, settlementCurrency = 'COP'): Promise<ReportParams> {
  let asOf = now.toISOString();
  if (raw.as_of !== undefined && raw.as_of !== '') {
    if (raw.as_of.startsWith('evt_')) {
      const entry = await store.get<FeedEntry>('events', raw.as_of);
      if (!entry || entry._account !== owner.accountId || entry.is_test !== (owner.mode === 'test')) throw invalidParam('as_of', `No such event: '${raw.as_of}'`);
      asOf = entry.created;
    } else {
      const at = Date.parse(raw.as_of);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(raw.as_of) || Number.isNaN(at)) throw invalidParam('as_of', 'as_of must be an ISO 8601 timestamp (2027-01-31T23:59:59Z) or an event id (evt_…)');
      asOf = new Date(at).toISOString();
    }
  }
  const interval = (raw.interval || 'month') as ReportInterval;
  if (!['day', 'week', 'month'].includes(interval)) throw invalidParam('interval', 'interval must be day, week or month');
  for (const param of ['from', 'to'] as const) {
    if (raw[param] && !isCalendarDay(raw[param])) throw invalidParam(param, `${param} must be a calendar date written YYYY-MM-DD`);
  }
  const to = raw.to || calendarDayOf(asOf);
  let from = raw.from;
  if (!from) {
    if (interval === 'month') {
      const [y, m] = to.split('-').map(Number);
      from = new Date(Date.UTC(y, m - 12, 1)).toISOString().slice(0, 10);
    } else from = addCalendarDays(to, interval === 'week' ? -83 : -29);
  }
  if (from > to) throw invalidParam('from', `from (${from}) must not be after to (${to})`);
  const code = (raw.currency || settlementCurrency).toUpperCase();
  if (!currencyOf(code)) throw invalidParam('currency', `Unknown currency: '${raw.currency}'`);
  // Counted without building them: a day is a period at most.
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
  if (days > MAX_PERIODS && periodsOf(from, to, interval).length > MAX_PERIODS) throw invalidParam(interval === 'day' ? 'from' : 'interval', `A report holds at most ${MAX_PERIODS} periods: choose a shorter range or a longer interval`);
  return { from, to, interval, as_of: asOf, currency: code };
}
