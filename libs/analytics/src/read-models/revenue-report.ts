/**
 * The revenue report: every figure of the dashboard's home page and of `GET /v1/reports/*`, for one
 * account, mode and currency, over a range cut into periods (day, week, month), as known at `as_of`.
 * One computation (application/get-revenue-report.ts) serves the page and the API.
 *
 * Amounts are decimal strings in `currency` (the settlement currency COP unless asked otherwise);
 * rates are decimal strings (0.0523 = 5.23 %), null when their denominator is 0.
 */
export type ReportInterval = 'day' | 'week' | 'month';

export interface ReportParams {
  /** First calendar day (YYYY-MM-DD, the account's time zone) of the range. */
  from: string;
  /** Last calendar day of the range (inclusive). */
  to: string;
  interval: ReportInterval;
  /** ISO 8601 instant: the figures as the events recorded up to then made them. */
  as_of: string;
  currency: string;
}

/** MRR movements: what moved monthly recurring revenue in a period (new + expansion + reactivation − contraction − churn = net_new). */
export interface MrrMovements {
  new: string;
  expansion: string;
  contraction: string;
  churn: string;
  reactivation: string;
  net_new: string;
}

export interface ReportPeriod extends MrrMovements {
  /** First day of the period (YYYY-MM-DD). */
  start: string;
  /** Last day of the period (inclusive). */
  end: string;
  /** MRR at the period's start and at its end (or at as_of, for the period that holds it). */
  mrr_start: string;
  mrr: string;
  /** Subscriptions counted in MRR, and customers with at least one, at the period's end. */
  active_subscriptions: number;
  paying_customers: number;
  new_subscriptions: number;
  churned_subscriptions: number;
  reactivated_subscriptions: number;
  /** churned_subscriptions ÷ active subscriptions at the period's start. */
  subscriber_churn_rate: string | null;
  /** (churn + contraction) ÷ mrr_start. */
  revenue_churn_rate: string | null;
  /** (churn + contraction − expansion − reactivation) ÷ mrr_start. */
  net_revenue_churn_rate: string | null;
  /** mrr ÷ paying_customers. */
  arpu: string | null;
  /** Payments received, refunds given, and payments less refunds. */
  collected: string;
  refunded: string;
  net_revenue: string;
  /** Amount of collections past due at the period's end. */
  at_risk: string;
  /** Paid after a failed attempt or after falling past due (recovered by retries and reminders). */
  recovered: string;
}

export interface RenewalsDue {
  count: number;
  amount: string;
}

export interface RevenueReport {
  object: 'revenue_report';
  currency: string;
  from: string;
  to: string;
  interval: ReportInterval;
  as_of: string;
  periods: ReportPeriod[];
  /** The whole range as one period (rates over the range, stocks at its end). */
  totals: ReportPeriod;
  /** Renewals expected from as_of: within 7 and within 30 days, with what they would collect. */
  renewals: { next_7_days: RenewalsDue; next_30_days: RenewalsDue };
}

/** One MRR movement (or money flow) and the event that caused it. */
export interface RevenueMovement {
  id: string;
  object: 'revenue_movement';
  type: 'new' | 'expansion' | 'contraction' | 'churn' | 'reactivation';
  /** Signed change of MRR (negative for contraction and churn). */
  amount: string;
  currency: string;
  /** MRR of the subscription before and after. */
  mrr_before: string;
  mrr_after: string;
  subscription: string;
  customer: string;
  /** The `evt_` event that caused it, its type and when it happened. */
  event: string;
  event_type: string;
  occurred_at: string;
}
