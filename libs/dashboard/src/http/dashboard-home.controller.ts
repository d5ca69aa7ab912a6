import { Controller, Get, Inject, Req, Res, UseFilters } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { GetRevenueReportQuery, ListRevenueMovementsQuery } from '#analytics/application/get-revenue-report.js';
import type { RevenueMovement, RevenueReport } from '#analytics/read-models/revenue-report.js';
import type { ListPage } from '#http/list.js';
import { CLOCK, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { Clock } from '#shared/clock.js';
import { ApiError } from '#shared/errors.js';
import { apiErrorText } from '#web/api-error-messages.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { DashboardPage } from './dashboard-page.js';
import { homeView, INTERVALS, MOVEMENT_TYPES, movementsHref, readControls } from './dashboard-home.js';

/** Movements per page of the movements list. */
const MOVEMENTS_PAGE = 50;

/**
 * The dashboard's home page: the revenue report (GetRevenueReportQuery, the same computation as the
 * API's reports) for a range, interval, currency and cut-off time all in the URL, as headline cards,
 * three server-rendered SVG charts each with its table, and the movements page listing what moved MRR
 * with the event that caused it. Needs `reports.read`.
 */
@ApiExcludeController()
@Controller('dashboard/home')
@UseFilters(PageErrorFilter)
export class DashboardHomeController {
  constructor(
    private readonly page: DashboardPage,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  @Public()
  @Get()
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'reports.read');
    if (!visitor) return reply;
    const locale = this.page.locale(request, reply);
    const t = this.page.t(request, reply);
    const controls = readControls((request.query ?? {}) as Record<string, unknown>, this.clock.now());
    let report: RevenueReport | null = null;
    let refused: string | null = null;
    if (controls.params) {
      try {
        report = await this.queries.execute<GetRevenueReportQuery, RevenueReport>(new GetRevenueReportQuery(visitor, controls.params));
      } catch (e) {
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        const field = e.param && e.param in controls.form ? e.param : null;
        const words = apiErrorText(e, { t, locale, field: (p) => p });
        if (field) controls.errors[field] = { key: 'dash.home.error.refused_field', params: { words } };
        else refused = words;
      }
    }
    const status = report ? 200 : 400;
    return this.page.send(
      request,
      reply,
      visitor,
      'dash-home',
      {
        form: controls.form,
        errors: controls.errors,
        refused,
        report,
        view: report ? homeView(report, t, locale) : null,
        intervals: INTERVALS,
        movementTypes: MOVEMENT_TYPES,
        movementsHref: controls.params ? movementsHref(controls.params) : null,
      },
      'dash.home.title',
      {},
      status,
    );
  }

  @Public()
  @Get('movements')
  async movements(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'reports.read');
    if (!visitor) return reply;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const controls = readControls({ ...query, interval: 'month' }, this.clock.now());
    const type = typeof query.type === 'string' && query.type !== '' ? query.type : undefined;
    const startingAfter = typeof query.starting_after === 'string' && query.starting_after !== '' ? query.starting_after : undefined;
    if (!controls.params || (type && !(MOVEMENT_TYPES as readonly string[]).includes(type))) throw new PageError(400, 'bad_request');
    const { from, to, as_of, currency } = controls.params;
    const params = { from, to, as_of, currency, type: type as (typeof MOVEMENT_TYPES)[number] | undefined, limit: MOVEMENTS_PAGE, starting_after: startingAfter };
    const page = await this.queries.execute<ListRevenueMovementsQuery, ListPage<RevenueMovement>>(new ListRevenueMovementsQuery(visitor, params));
    const extra: Record<string, string> = type ? { type } : {};
    const next = page.has_more && page.data.length ? movementsHref(controls.params, { ...extra, starting_after: page.data[page.data.length - 1].id }) : null;
    // Each customer by name and e-mail (the id under it): one read for the page.
    const found = await this.store.getMany<{ _account: string; is_test: boolean; name?: string | null; email?: string | null }>('customers', [...new Set(page.data.map((m) => m.customer))]);
    const customers: Record<string, { name: string | null; email: string | null }> = {};
    for (const [id, c] of found) if (c._account === visitor.accountId && c.is_test === (visitor.mode === 'test')) customers[id] = { name: c.name ?? null, email: c.email ?? null };
    const back = `/dashboard/home?${new URLSearchParams({ from, to, currency, as_of: typeof query.as_of === 'string' ? query.as_of : '' }).toString()}`;
    return this.page.send(request, reply, visitor, 'dash-home-movements', { params: { ...params, type: type ?? '' }, page, customers, next, backHref: back, movementTypes: MOVEMENT_TYPES }, 'dash.movements.title', {}, 200);
  }
}
