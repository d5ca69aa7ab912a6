import { Controller, Get, Inject, Param, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { type IQuery, QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { apiValidationPipe } from '#http/validation.js';
import type { ListPage } from '#http/list.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { calendarDayOf } from '#shared/dates.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import type { Locale, Translate } from '#web/i18n.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { CSV_BOM, csvAmount, csvDateTime, csvLine, csvSeparator, sendCsv } from './csv.js';
import { DashboardPage, pages } from './dashboard-page.js';
import { listRows } from './dashboard-list-rows.js';
import { type Column, type DashboardResource, pick, RESOURCES, searchMatch } from './dashboard-resources.js';
import { valueLabel } from './dashboard-values.js';

type Doc = Record<string, any>;

/** Rows read per list query (the API's largest page). */
export const EXPORT_PAGE = 100;

/** Query parameters of the list page that are not filters: the language and the paging. */
const NOT_FILTERS = new Set(['locale', 'limit', 'starting_after', 'ending_before', 'q']);

/** One column of the file: its header and how a row's cell reads. */
interface CsvColumn {
  header: string;
  cell: (row: Doc) => string;
}

/**
 * The file's columns, from the list's columns as RESOURCES defines them when asked (whatever columns the
 * list shows are exported): each column, then each of its `also` fields in a column of its own, a money
 * column followed by its currency; the row's id last when no column is the id (ids stay reachable).
 */
export function csvColumns(name: string, resource: DashboardResource, t: Translate, locale: Locale): CsvColumn[] {
  const header = (field: string) => t(`dash.field.${field}`);
  const text = (field: string) => (row: Doc) => {
    const v = pick(row, field);
    if (v === null || v === undefined) return '';
    if (typeof v === 'object') return JSON.stringify(v);
    return valueLabel(t, name, field, v);
  };
  const currencyOf = (c: Column, row: Doc): string => String((c.currency && pick(row, c.currency)) || row.currency || 'COP');
  const columns: CsvColumn[] = [];
  for (const c of resource.columns) {
    if (c.kind === 'money') {
      columns.push({
        header: header(c.field),
        cell: (row) => {
          const v = pick(row, c.field);
          return v === null || v === undefined || v === '' ? '' : csvAmount(String(v), currencyOf(c, row), locale);
        },
      });
      columns.push({ header: header('currency'), cell: (row) => (pick(row, c.field) == null ? '' : currencyOf(c, row)) });
    } else if (c.kind === 'date') {
      columns.push({ header: header(c.field), cell: (row) => csvDateTime(pick(row, c.field) as string | null) });
    } else {
      columns.push({ header: header(c.field), cell: text(c.field) });
    }
    for (const also of c.also ?? []) columns.push({ header: header(also), cell: text(also) });
  }
  if (!resource.columns.some((c) => c.kind === 'id' || c.field === 'id')) columns.push({ header: header('id'), cell: (row) => String(row.id ?? '') });
  return columns;
}

/**
 * A dashboard list as a CSV file, with the list page's filters: GET /dashboard/<resource>/export.csv?…
 * (a static last segment: the router sends it here, never to the detail page `:resource/:id`). Needs
 * `data.export` (a viewer gets the 403 page). The filters are validated by the list endpoint's own DTO
 * (a refused one is the 400 page, before anything is sent); then the same list query runs page after
 * page (`starting_after`, 100 rows a page), each page given the list's business columns
 * (dashboard-list-rows.ts) and written to the reply as it is read: memory stays flat in the number of rows.
 */
@ApiExcludeController()
@Controller('dashboard')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class DashboardExportController {
  constructor(
    private readonly page: DashboardPage,
    private readonly queries: QueryBus,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Public()
  @Get(':resource/export.csv')
  async export(@Param('resource') name: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'data.export');
    if (!visitor) return reply;
    const resource = Object.hasOwn(RESOURCES, name) ? RESOURCES[name] : undefined;
    if (!resource) throw new PageError(404, 'not_found');
    const locale = this.page.locale(request, reply);
    const t = pages.helpers(locale).t;
    const query = Object.fromEntries(Object.entries((request.query ?? {}) as Record<string, unknown>).filter(([k, v]) => !NOT_FILTERS.has(k) && typeof v === 'string' && v !== '')) as Record<string, string>;
    if (resource.requires && !query[resource.requires]) throw new PageError(400, 'bad_request');
    // A test-only list (test clocks) read with a live key lists nothing: the file has its header only.
    let params: Record<string, any> | null = null;
    if (!(resource.testOnly && visitor.mode === 'live')) {
      const { [resource.requires ?? '']: required, ...rest } = query;
      params = (await apiValidationPipe().transform({ ...rest, limit: String(EXPORT_PAGE) }, { type: 'query', metatype: resource.params as never, data: '' })) as Record<string, any>;
      if (resource.requires) params[resource.requires] = required;
    }
    // The search box's `q` narrows the file as it narrows the list (the same SearchMatch for every page).
    const q = (request.query as Record<string, unknown> | undefined)?.q;
    const match = params ? await searchMatch(this.queries, resource, visitor, typeof q === 'string' ? q : undefined) : undefined;
    const columns = csvColumns(name, resource, t, locale);
    const sep = csvSeparator(locale);
    const queries = this.queries;
    const store = this.store;
    async function* chunks(): AsyncGenerator<string> {
      yield CSV_BOM + csvLine(columns.map((c) => c.header), sep);
      let after: string | undefined;
      while (params) {
        const page = await queries.execute<IQuery, ListPage<Doc>>(resource!.list(visitor!, { ...params, ...(after ? { starting_after: after } : {}) }, match));
        if (!page || page.data.length === 0) return;
        const rows = await listRows(store, visitor!, name, page.data, { t, locale });
        let chunk = '';
        for (const row of rows) chunk += csvLine(columns.map((c) => c.cell(row)), sep);
        yield chunk;
        if (!page.has_more) return;
        after = String(page.data[page.data.length - 1].id);
      }
    }
    return sendCsv(reply, `${name}-${calendarDayOf(this.clock.now())}.csv`, chunks());
  }
}
