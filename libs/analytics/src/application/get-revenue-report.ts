import type { Owner } from '#shared/owner.js';
import type { ReportParams } from '../read-models/revenue-report.js';

/** The revenue report of an owner (account and mode) for the params: answers a RevenueReport. */
export class GetRevenueReportQuery {
  constructor(
    readonly owner: Owner,
    readonly params: ReportParams,
  ) {}
}

/** Movements of MRR in a range (newest first), each with the event that caused it: answers a ListPage<RevenueMovement>. */
export class ListRevenueMovementsQuery {
  constructor(
    readonly owner: Owner,
    readonly params: {
      from: string;
      to: string;
      as_of: string;
      currency: string;
      type?: 'new' | 'expansion' | 'contraction' | 'churn' | 'reactivation';
      limit: number;
      starting_after?: string;
    },
  ) {}
}
