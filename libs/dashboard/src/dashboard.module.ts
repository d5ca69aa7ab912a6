import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/src/accounts.module.js';
import { PortalModule } from '../../portal/src/portal.module.js';
import { WebModule } from '../../web/src/web.module.js';
import { DashboardSignIn } from './application/dashboard-sign-in.js';
import { DashboardPagesController } from './http/dashboard-pages.controller.js';

/** The merchant dashboard at /dashboard (pages over the API's queries and commands). */
@Module({
  imports: [AccountsModule, PortalModule, WebModule],
  controllers: [DashboardPagesController],
  providers: [DashboardSignIn],
})
export class DashboardModule {}
