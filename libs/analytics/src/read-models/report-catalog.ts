import type { ReportPeriod, RevenueReport } from './revenue-report.js';

/**
 * The reports of `GET /v1/reports/<name>`: one per figure, each a subset of the revenue report's
 * periods (the same computation as the dashboard's home page), in JSON or CSV.
 */
export const REPORTS = {
  mrr: {
    summary: 'MRR and its movements per period',
    fields: ['mrr_start', 'new', 'expansion', 'contraction', 'churn', 'reactivation', 'net_new', 'mrr'],
  },
  subscriptions: {
    summary: 'Active subscriptions, new, churned and reactivated per period, and the subscriber churn rate',
    fields: ['active_subscriptions', 'new_subscriptions', 'churned_subscriptions', 'reactivated_subscriptions', 'subscriber_churn_rate'],
  },
  customers: {
    summary: 'Paying customers and ARPU (MRR per paying customer) per period',
    fields: ['paying_customers', 'arpu', 'mrr'],
  },
  churn: {
    summary: 'Subscriber churn, revenue churn and net revenue churn rates per period',
    fields: ['churned_subscriptions', 'subscriber_churn_rate', 'churn', 'contraction', 'revenue_churn_rate', 'net_revenue_churn_rate'],
  },
  net_revenue: {
    summary: 'Payments collected, refunds and net revenue per period',
    fields: ['collected', 'refunded', 'net_revenue'],
  },
  at_risk: {
    summary: 'Amount past due at each period end, and amount recovered by retries and reminders per period',
    fields: ['at_risk', 'recovered'],
  },
} as const satisfies Record<string, { summary: string; fields: readonly (keyof ReportPeriod)[] }>;

export type ReportName = keyof typeof REPORTS;
export const REPORT_NAMES = Object.keys(REPORTS) as ReportName[];

/** One figure's report: the range, and per period (and over the whole range) only that figure's fields. */
export interface FigureReport {
  object: 'report';
  report: ReportName;
  currency: string;
  from: string;
  to: string;
  interval: RevenueReport['interval'];
  as_of: string;
  periods: Array<Record<string, unknown>>;
  totals: Record<string, unknown>;
}

export function figureReport(name: ReportName, report: RevenueReport): FigureReport {
  const fields = REPORTS[name].fields as readonly (keyof ReportPeriod)[];
  const pick = (p: ReportPeriod) => Object.fromEntries([['start', p.start], ['end', p.end], ...fields.map((f) => [f, p[f]])]);
  return {
    object: 'report',
    report: name,
    currency: report.currency,
    from: report.from,
    to: report.to,
    interval: report.interval,
    as_of: report.as_of,
    periods: report.periods.map(pick),
    totals: pick(report.totals),
  };
}

/** The columns of a report's CSV: the period, then its fields. */
export function figureCsvColumns(name: ReportName): string[] {
  return ['start', 'end', ...REPORTS[name].fields];
}
