import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import { PortalModule } from '#portal/portal.module.js';
import { WebModule } from '#web/web.module.js';
import { DashboardSignIn } from './application/dashboard-sign-in.js';
import { DashboardPagesController } from './http/dashboard-pages.controller.js';

/** The merchant dashboard at /dashboard (pages over the API's queries and commands). */
@Module({
  imports: [AccountsModule, PortalModule, WebModule],
  controllers: [DashboardPagesController],
  providers: [DashboardSignIn],
})
export class DashboardModule {}
