import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FastifyReply } from 'fastify';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { ListQuery } from '#http/list.js';
import { ApiResource } from '#http/api-resource.js';
import { CLOCK, READ_STORE } from '#platform/tokens.js';
import type { Clock } from '#shared/clock.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { GetRevenueReportQuery, ListRevenueMovementsQuery } from '../application/get-revenue-report.js';
import { resolveReportParams } from '../application/report-params.js';
import { figureCsvColumns, figureReport, type ReportName } from '../read-models/report-catalog.js';
import type { RevenueReport } from '../read-models/revenue-report.js';
import { MOVEMENT_TYPES } from '../read-models/revenue.read-model.js';
import { reportCsv } from './report-csv.js';

class RangeParams {
  @ApiPropertyOptional({ example: '2026-01-01', description: "First calendar day of the range (YYYY-MM-DD, the account's time zone America/Bogota). Default: a year of months (12 weeks, 30 days) before `to`." })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-31', description: 'Last calendar day of the range, inclusive. Default: the day that holds `as_of`.' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  to?: string;

  @ApiPropertyOptional({ description: 'The figures as the events recorded up to this moment made them: an ISO 8601 timestamp or an event id (`evt_…`). Default: now. A report for a past moment never changes.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  as_of?: string;

  @ApiPropertyOptional({ example: 'COP', description: "The currency reported (ISO 4217). Default COP, the settlement currency. Subscriptions and collections in another currency are reported in their own." })
  @IsOptional()
  @IsString()
  @MaxLength(3)
  currency?: string;
}

export class ReportParamsQuery extends RangeParams {
  @ApiPropertyOptional({ enum: ['day', 'week', 'month'], default: 'month', description: 'Length of each period: a day, an ISO week (Monday to Sunday) or a calendar month, clipped to the range.' })
  @IsOptional()
  @IsIn(['day', 'week', 'month'])
  interval?: string;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json', description: '`csv`: one line per period (comma-separated, decimal point, UTF-8), then a line for the whole range.' })
  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}

export class MovementsParamsQuery extends ListQuery {
  @ApiPropertyOptional({ example: '2026-01-01' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-31' })
  @IsOptional()
  @IsString()
  @MaxLength(10)
  to?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 timestamp or `evt_…` id; default now.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  as_of?: string;

  @ApiPropertyOptional({ example: 'COP' })
  @IsOptional()
  @IsString()
  @MaxLength(3)
  currency?: string;

  @ApiPropertyOptional({ enum: MOVEMENT_TYPES, description: 'Only movements of this type.' })
  @IsOptional()
  @IsIn([...MOVEMENT_TYPES])
  type?: (typeof MOVEMENT_TYPES)[number];

  @ApiProperty({ required: false, enum: ['json', 'csv'], default: 'json', description: '`csv`: every movement of the range (not a page), streamed.' })
  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}

/**
 * Revenue analytics for finance tools: the figures of the dashboard's home page, computed by the same
 * query from the `revenue` projection (docs/revenue-analytics.md defines each one).
 */
@ApiTags('reports')
@ApiBasicAuth()
@ApiResource('reports')
@Controller('v1/reports')
export class ReportsController {
  constructor(
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  private async report(ctx: CommandContext, params: ReportParamsQuery): Promise<RevenueReport> {
    const resolved = await resolveReportParams(params, ctx.now ?? this.clock.now(), ctx, this.store);
    return this.queries.execute(new GetRevenueReportQuery(ctx, resolved));
  }

  private async figure(name: ReportName, ctx: CommandContext, params: ReportParamsQuery, reply: FastifyReply) {
    const report = figureReport(name, await this.report(ctx, params));
    if (params.format !== 'csv') return report;
    return reportCsv(reply, `${name}-${report.from}-${report.to}.csv`, figureCsvColumns(name), [...report.periods, { ...report.totals, start: report.from, end: report.to }]);
  }

  @Get('summary')
  @ApiOperation({ summary: 'Every figure of the revenue report per period, over the range, and the renewals due in the next 7 and 30 days' })
  async summary(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery) {
    return this.report(ctx, params);
  }

  @Get('mrr')
  @ApiOperation({ summary: 'MRR and its movements (new, expansion, contraction, churn, reactivation) per period' })
  mrr(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.figure('mrr', ctx, params, reply);
  }

  @Get('subscriptions')
  @ApiOperation({ summary: 'Active subscriptions, new, churned and reactivated per period, and the subscriber churn rate' })
  subscriptions(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.figure('subscriptions', ctx, params, reply);
  }

  @Get('customers')
  @ApiOperation({ summary: 'Paying customers and ARPU per period' })
  customers(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.figure('customers', ctx, params, reply);
  }

  @Get('churn')
  @ApiOperation({ summary: 'Subscriber churn, revenue churn and net revenue churn rates per period' })
  churn(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.figure('churn', ctx, params, reply);
  }

  @Get('net_revenue')
  @ApiOperation({ summary: 'Payments collected, refunds and net revenue per period' })
  netRevenue(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.figure('net_revenue', ctx, params, reply);
  }

  @Get('at_risk')
  @ApiOperation({ summary: 'Amount past due at each period end and amount recovered per period' })
  atRisk(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    return this.figure('at_risk', ctx, params, reply);
  }

  @Get('renewals')
  @ApiOperation({ summary: 'Renewals due in the next 7 and 30 days from as_of, with the amount they would collect' })
  async renewals(@Ctx() ctx: CommandContext, @Query() params: ReportParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.report(ctx, params);
    const body = { object: 'renewals_report' as const, currency: report.currency, as_of: report.as_of, next_7_days: report.renewals.next_7_days, next_30_days: report.renewals.next_30_days };
    if (params.format !== 'csv') return body;
    return reportCsv(reply, `renewals-${report.as_of.slice(0, 10)}.csv`, ['window', 'count', 'amount'], [
      { window: 'next_7_days', ...body.next_7_days },
      { window: 'next_30_days', ...body.next_30_days },
    ]);
  }

  @Get('mrr_movements')
  @ApiOperation({ summary: 'The MRR movements of a range, newest first, each with the subscription, customer and event that caused it' })
  async movements(@Ctx() ctx: CommandContext, @Query() params: MovementsParamsQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const resolved = await resolveReportParams({ from: params.from, to: params.to, as_of: params.as_of, currency: params.currency, interval: 'day' }, ctx.now ?? this.clock.now(), ctx, this.store);
    const query = (limit: number, starting_after?: string) =>
      new ListRevenueMovementsQuery(ctx, { from: resolved.from, to: resolved.to, as_of: resolved.as_of, currency: resolved.currency, type: params.type, limit, starting_after });
    if (params.format !== 'csv') return this.queries.execute(query(params.limit ?? 10, params.starting_after));
    const queries = this.queries;
    async function* rows() {
      let after: string | undefined;
      for (;;) {
        const page = await queries.execute(query(100, after));
        yield* page.data;
        if (!page.has_more) return;
        after = page.data[page.data.length - 1].id;
      }
    }
    return reportCsv(reply, `mrr-movements-${resolved.from}-${resolved.to}.csv`, ['occurred_at', 'type', 'amount', 'currency', 'mrr_before', 'mrr_after', 'subscription', 'customer', 'event', 'event_type', 'id'], rows());
  }
}
