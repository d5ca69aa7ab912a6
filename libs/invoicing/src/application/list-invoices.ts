import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { CommandContext } from '#platform/command-context.js';
import { ReadModels } from '#platform/read-models.js';
import { invalidParam } from '#shared/errors.js';
import { endOfCalendarDay, isCalendarDay, startOfCalendarDay } from '#shared/dates.js';
import { listPage } from '#http/list.js';
import type { Scalar } from '#read-store/read-store.port.js';
import type { InvoiceDoc } from '../read-models/invoice.read-model.js';
import { InvoiceTime } from './invoice-time.js';

export interface ListInvoicesParams {
  limit?: number;
  starting_after?: string;
  customer?: string;
  status?: string;
  due_date_from?: string;
  due_date_to?: string;
}

export class ListInvoicesQuery {
  constructor(
    readonly ctx: CommandContext,
    readonly params: ListInvoicesParams,
  ) {}
}

/** Invoices in due-date order (nearest first; without a due date last), filtered by customer, status and a due-date range. */
@QueryHandler(ListInvoicesQuery)
export class ListInvoicesHandler implements IQueryHandler<ListInvoicesQuery> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly time: InvoiceTime,
  ) {}

  async execute({ ctx, params }: ListInvoicesQuery) {
    const limit = params.limit ?? 10;
    const where: Record<string, Scalar | Scalar[]> = { _account: ctx.accountId, is_test: ctx.mode === 'test', _deleted: false };
    if (params.customer) where.customer = params.customer;
    if (params.status) where.status = params.status;
    // A date bound is a calendar day of the account's zone, whole: from its start, to its end.
    const from = params.due_date_from ? (isCalendarDay(params.due_date_from) ? startOfCalendarDay(params.due_date_from).getTime() : Date.parse(params.due_date_from)) : null;
    const to = params.due_date_to ? (isCalendarDay(params.due_date_to) ? endOfCalendarDay(params.due_date_to).getTime() : Date.parse(params.due_date_to)) : null;
    if (Number.isNaN(from)) throw invalidParam('due_date_from', 'due_date_from must be an ISO 8601 date or time');
    if (Number.isNaN(to)) throw invalidParam('due_date_to', 'due_date_to must be an ISO 8601 date or time');
    let after: { value: Scalar; id: string } | undefined;
    if (params.starting_after) {
      const cursor = await this.readModels.find<InvoiceDoc>('invoices', params.starting_after, ctx);
      if (!cursor) throw invalidParam('starting_after', `No such object: '${params.starting_after}'`);
      after = { value: cursor._due_sort, id: cursor.id };
    }
    // The range filters the ordered rows (the port has equality filters only); pages stay in order.
    const rows: InvoiceDoc[] = [];
    while (rows.length <= limit) {
      const batch = await this.readModels.store.find<InvoiceDoc>('invoices', { where, orderBy: { field: '_due_sort', direction: 'asc' }, after, limit: 100 });
      for (const r of batch) {
        const due = r.due_date ? Date.parse(r.due_date) : null;
        if (from !== null && (due === null || due < from)) continue;
        if (to !== null && (due === null || due > to)) continue;
        rows.push(r);
      }
      if (batch.length < 100 || (to !== null && batch.length > 0 && (batch[batch.length - 1].due_date === null || Date.parse(batch[batch.length - 1].due_date!) > to))) break;
      after = { value: batch[batch.length - 1]._due_sort, id: batch[batch.length - 1].id };
    }
    const page = listPage('/v1/invoices', rows, limit);
    return { ...page, data: await this.time.present(ctx, page.data.map((d) => toPublicDoc(d))) };
  }
}

const toPublicDoc = (d: InvoiceDoc) => Object.fromEntries(Object.entries(d).filter(([k]) => !k.startsWith('_'))) as InvoiceDoc;
