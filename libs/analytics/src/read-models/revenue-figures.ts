import { Money, formatAmount } from '#shared/money.js';
import { addCalendarDays } from '#shared/dates.js';
import { COUNT_KEYS, MONEY_KEYS, type RevenueDelta, addDelta } from './revenue.read-model.js';
import type { ReportInterval, ReportPeriod, RevenueReport, RenewalsDue } from './revenue-report.js';
import { currencyOrNull } from '../domain/mrr.js';

/**
 * The report from the days' changes (pure): stocks (MRR, active subscriptions, paying customers,
 * at risk, renewals due) are the running sums of every change up to a moment, flows (movements,
 * collected, refunded, recovered) the sums over a period. `changes` holds one currency's change of
 * each day (the day that holds `as_of` already cut at it), in any order.
 */
export interface ReportInput {
  currency: string;
  from: string;
  to: string;
  interval: ReportInterval;
  /** The instant reported (ISO 8601). */
  as_of: string;
  /** The day the renewals windows start on (the day that holds as_of). */
  today: string;
  changes: Map<string, RevenueDelta>;
}

/** The periods of [from, to]: every day, ISO week (Monday to Sunday) or calendar month, clipped to the range. */
export function periodsOf(from: string, to: string, interval: ReportInterval): { start: string; end: string }[] {
  const out: { start: string; end: string }[] = [];
  let start = from;
  while (start <= to) {
    let end: string;
    if (interval === 'day') end = start;
    else if (interval === 'week') {
      const weekday = (new Date(`${start}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday 0
      end = addCalendarDays(start, 6 - weekday);
    } else {
      const [y, m] = start.split('-').map(Number);
      end = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    }
    if (end > to) end = to;
    out.push({ start, end });
    start = addCalendarDays(end, 1);
  }
  return out;
}

interface Stocks {
  mrr: Money;
  active: number;
  customers: number;
  at_risk: Money;
}

const stockAfter = (s: Stocks, d: RevenueDelta): Stocks => ({
  mrr: s.mrr
    .plus(d.new ?? 0)
    .plus(d.expansion ?? 0)
    .plus(d.reactivation ?? 0)
    .minus(d.contraction ?? 0)
    .minus(d.churn ?? 0),
  active: s.active + (d.active ?? 0),
  customers: s.customers + (d.customers ?? 0),
  at_risk: s.at_risk.plus(d.at_risk ?? 0),
});

function rate(numerator: Money, denominator: Money | number): string | null {
  const den = new Money(denominator);
  if (den.lte(0)) return null;
  return numerator.div(den).toDecimalPlaces(4, Money.ROUND_HALF_UP).toFixed(4);
}

export function buildReport(input: ReportInput): RevenueReport {
  const cur = currencyOrNull(input.currency);
  const fmt = (m: Money | string | number) => (cur ? formatAmount(new Money(m), cur) : new Money(m).toFixed());
  const days = [...input.changes.keys()].sort();
  let stocks: Stocks = { mrr: new Money(0), active: 0, customers: 0, at_risk: new Money(0) };
  let i = 0;
  // Everything before the range: the stocks it starts from.
  while (i < days.length && days[i] < input.from) stocks = stockAfter(stocks, input.changes.get(days[i++])!);
  const period = (start: string, end: string, startStocks: Stocks, flow: RevenueDelta, endStocks: Stocks): ReportPeriod => {
    const m = (k: (typeof MONEY_KEYS)[number]) => new Money(flow[k] ?? 0);
    const net = m('new').plus(m('expansion')).plus(m('reactivation')).minus(m('contraction')).minus(m('churn'));
    return {
      start,
      end,
      mrr_start: fmt(startStocks.mrr),
      mrr: fmt(endStocks.mrr),
      new: fmt(m('new')),
      expansion: fmt(m('expansion')),
      contraction: fmt(m('contraction')),
      churn: fmt(m('churn')),
      reactivation: fmt(m('reactivation')),
      net_new: fmt(net),
      active_subscriptions: endStocks.active,
      paying_customers: endStocks.customers,
      new_subscriptions: flow.new_subscriptions ?? 0,
      churned_subscriptions: flow.churned_subscriptions ?? 0,
      reactivated_subscriptions: flow.reactivated_subscriptions ?? 0,
      subscriber_churn_rate: rate(new Money(flow.churned_subscriptions ?? 0), startStocks.active),
      revenue_churn_rate: rate(m('churn').plus(m('contraction')), startStocks.mrr),
      net_revenue_churn_rate: rate(m('churn').plus(m('contraction')).minus(m('expansion')).minus(m('reactivation')), startStocks.mrr),
      arpu: endStocks.customers > 0 ? fmt(endStocks.mrr.div(endStocks.customers)) : null,
      collected: fmt(m('collected')),
      refunded: fmt(m('refunded')),
      net_revenue: fmt(m('collected').minus(m('refunded'))),
      at_risk: fmt(endStocks.at_risk),
      recovered: fmt(m('recovered')),
    };
  };
  const rangeStart = stocks;
  let rangeFlow: RevenueDelta = {};
  const periods: ReportPeriod[] = [];
  for (const p of periodsOf(input.from, input.to, input.interval)) {
    const start = stocks;
    let flow: RevenueDelta = {};
    while (i < days.length && days[i] <= p.end) {
      const d = input.changes.get(days[i++])!;
      stocks = stockAfter(stocks, d);
      flow = addDelta(flow, flowOnly(d));
    }
    rangeFlow = addDelta(rangeFlow, flow);
    periods.push(period(p.start, p.end, start, flow, stocks));
  }
  // Renewals: the due changes of every day reported, summed on the days of each window.
  const due = new Map<string, { count: number; amount: Money }>();
  for (const day of days) {
    if (day > input.today) break;
    for (const [on, v] of Object.entries(input.changes.get(day)!.due ?? {})) {
      const prior = due.get(on) ?? { count: 0, amount: new Money(0) };
      due.set(on, { count: prior.count + v.count, amount: prior.amount.plus(v.amount) });
    }
  }
  const window = (length: number): RenewalsDue => {
    let count = 0;
    let amount = new Money(0);
    const last = addCalendarDays(input.today, length - 1);
    for (const [on, v] of due) {
      if (on < input.today || on > last) continue;
      count += v.count;
      amount = amount.plus(v.amount);
    }
    return { count, amount: fmt(amount) };
  };
  return {
    object: 'revenue_report',
    currency: input.currency,
    from: input.from,
    to: input.to,
    interval: input.interval,
    as_of: input.as_of,
    periods,
    totals: period(input.from, input.to, rangeStart, rangeFlow, stocks),
    renewals: { next_7_days: window(7), next_30_days: window(30) },
  };
}

/** A day's flows (the due changes are not summed per period). */
function flowOnly(d: RevenueDelta): RevenueDelta {
  const out: RevenueDelta = {};
  for (const k of MONEY_KEYS) if (d[k] !== undefined) out[k] = d[k];
  for (const k of COUNT_KEYS) if (d[k] !== undefined) out[k] = d[k];
  return out;
}
