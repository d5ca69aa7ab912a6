import { Module } from '@nestjs/common';
import { GetRevenueReportHandler, ListRevenueMovementsHandler } from './application/get-revenue-report.js';
import { ReportsController } from './http/reports.controller.js';

/** Revenue analytics: the reports over the `revenue` projection, for the API and the dashboard's home page. */
@Module({
  controllers: [ReportsController],
  providers: [GetRevenueReportHandler, ListRevenueMovementsHandler],
})
export class AnalyticsModule {}
