import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import { PortalModule } from '#portal/portal.module.js';
import { WebModule } from '#web/web.module.js';
import { TeamModule } from '#team/team.module.js';
import { DashboardAuthController } from './http/dashboard-auth.controller.js';
import { DashboardPage } from './http/dashboard-page.js';
import { DashboardKeysController } from './http/dashboard-keys.controller.js';
import { DashboardPagesController } from './http/dashboard-pages.controller.js';
import { DashboardExportController } from './http/dashboard-export.controller.js';
import { DashboardTeamController } from './http/dashboard-team.controller.js';
import { DashboardHomeController } from './http/dashboard-home.controller.js';

/** The merchant dashboard at /dashboard: members of the account's team sign in; pages over the API's queries and commands. */
@Module({
  imports: [AccountsModule, PortalModule, WebModule, TeamModule],
  controllers: [DashboardAuthController, DashboardHomeController, DashboardKeysController, DashboardTeamController, DashboardExportController, DashboardPagesController],
  providers: [DashboardPage],
  exports: [DashboardPage],
})
export class DashboardModule {}
