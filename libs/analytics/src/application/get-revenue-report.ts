import { Inject } from '@nestjs/common';
import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Owner } from '#shared/owner.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { invalidParam } from '#shared/errors.js';
import { calendarDayOf, endOfCalendarDay, startOfCalendarDay } from '#shared/dates.js';
import { type ListPage, listPage } from '#http/list.js';
import { toPublic } from '#projection-runtime/projection.js';
import { REVENUE_COLLECTION, REVENUE_ENTRIES, type RevenueDayDoc, type RevenueDelta, type RevenueEntry, addDelta, type MovementType } from '../read-models/revenue.read-model.js';
import { buildReport } from '../read-models/revenue-figures.js';
import type { ReportParams, RevenueMovement, RevenueReport } from '../read-models/revenue-report.js';

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

const PAGE = 1000;

/**
 * Reads the days of the account before the day that holds `as_of` and that day's entries up to it
 * (never the subscriptions), then builds the report (read-models/revenue-figures.ts).
 */
@QueryHandler(GetRevenueReportQuery)
export class GetRevenueReportHandler implements IQueryHandler<GetRevenueReportQuery, RevenueReport> {
  constructor(@Inject(READ_STORE) private readonly store: ReadStore) {}

  async execute({ owner, params }: GetRevenueReportQuery): Promise<RevenueReport> {
    const cutDay = calendarDayOf(params.as_of);
    if (params.from > cutDay) throw invalidParam('from', `from (${params.from}) is after as_of (${params.as_of}): nothing is known of that range yet`);
    const to = params.to > cutDay ? cutDay : params.to;
    const changes = await revenueChanges(this.store, owner, params.currency, params.as_of);
    return buildReport({ currency: params.currency, from: params.from, to, interval: params.interval, as_of: params.as_of, today: cutDay, changes });
  }
}

/** One currency's change of each day up to `asOf`: the days before its day whole, its day cut at the instant. */
export async function revenueChanges(store: ReadStore, owner: Owner, currency: string, asOf: string): Promise<Map<string, RevenueDelta>> {
  const cutDay = calendarDayOf(asOf);
  const changes = new Map<string, RevenueDelta>();
  const test = owner.mode === 'test';
  let after: { value: string; id: string } | undefined;
  for (;;) {
    const page = await store.find<RevenueDayDoc>(REVENUE_COLLECTION, { where: { _account: owner.accountId, is_test: test, _kind: 'day' }, orderBy: { field: 'day', direction: 'asc' }, after, limit: PAGE });
    let done = page.length < PAGE;
    for (const day of page) {
      if (day.day >= cutDay) {
        done = true;
        break;
      }
      const delta = day.by_currency[currency];
      if (delta) changes.set(day.day, delta);
    }
    if (done) break;
    const last = page[page.length - 1];
    after = { value: last.day, id: last.id };
  }
  const cut = Date.parse(asOf);
  let today: RevenueDelta = {};
  let entryAfter: { value: string; id: string } | undefined;
  for (;;) {
    const page = await store.find<RevenueEntry>(REVENUE_ENTRIES, { where: { _account: owner.accountId, is_test: test, currency, day: cutDay }, orderBy: { field: 'at', direction: 'asc' }, after: entryAfter, limit: PAGE });
    let done = page.length < PAGE;
    for (const entry of page) {
      if (Date.parse(entry.at) > cut) {
        done = true;
        break;
      }
      today = addDelta(today, entry.delta);
    }
    if (done) break;
    const last = page[page.length - 1];
    entryAfter = { value: last.at, id: last.id };
  }
  if (Object.keys(today).length) changes.set(cutDay, today);
  return changes;
}

/** The movements of a range, newest first, from the entries that made one. */
@QueryHandler(ListRevenueMovementsQuery)
export class ListRevenueMovementsHandler implements IQueryHandler<ListRevenueMovementsQuery, ListPage<RevenueMovement>> {
  constructor(@Inject(READ_STORE) private readonly store: ReadStore) {}

  async execute({ owner, params }: ListRevenueMovementsQuery): Promise<ListPage<RevenueMovement>> {
    const test = owner.mode === 'test';
    const end = Math.min(endOfCalendarDay(params.to).getTime(), Date.parse(params.as_of));
    const start = startOfCalendarDay(params.from).getTime();
    let after: { value: string; id: string } = { value: new Date(end + 1).toISOString(), id: '' };
    if (params.starting_after) {
      const cursor = await this.store.get<RevenueEntry>(REVENUE_ENTRIES, params.starting_after);
      if (!cursor || cursor._account !== owner.accountId || cursor.is_test !== test || !cursor.type) throw invalidParam('starting_after', `No such movement: '${params.starting_after}'`);
      after = { value: cursor.at, id: cursor.id };
    }
    const where: Record<string, string | boolean> = { _account: owner.accountId, is_test: test, currency: params.currency };
    if (params.type) where.type = params.type;
    else where._moved = true;
    const rows = await this.store.find<RevenueEntry & { _moved?: boolean }>(REVENUE_ENTRIES, { where, orderBy: { field: 'at', direction: 'desc' }, after, limit: params.limit + 1 });
    const inRange = rows.filter((r) => Date.parse(r.at) >= start && Date.parse(r.at) <= end);
    const movements: RevenueMovement[] = inRange.map((r) =>
      toPublic({
        id: r.id,
        object: 'revenue_movement' as const,
        type: r.type as MovementType,
        amount: r.amount!,
        currency: r.currency,
        mrr_before: r.mrr_before!,
        mrr_after: r.mrr_after!,
        subscription: r.subscription!,
        customer: r.customer!,
        event: r.event,
        event_type: r.event_type,
        occurred_at: r.at,
      }),
    );
    const more = movements.length > params.limit;
    return { ...listPage('/v1/reports/mrr_movements', movements, params.limit), has_more: more };
  }
}
