import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import { SubscriptionsModule } from '#subscriptions/subscriptions.module.js';
import { WebModule } from '#web/web.module.js';
import { CreatePortalSession } from './application/create-portal-session.js';
import { CustomerPortal } from './application/customer-portal.js';
import { PageSessionSigning } from './application/portal-signing.js';
import { ReplaceSubscriptionPaymentMethod } from './application/replace-subscription-payment-method.js';
import { PortalPagesController } from './http/portal-pages.controller.js';
import { PortalSessionsController } from './http/portal-sessions.controller.js';

/** The customer portal: `POST /v1/portal_sessions` and the pages under `{portal_url}/p`. */
@Module({
  imports: [AccountsModule, SubscriptionsModule, WebModule],
  controllers: [PortalSessionsController, PortalPagesController],
  providers: [CreatePortalSession, CustomerPortal, PageSessionSigning, ReplaceSubscriptionPaymentMethod],
  exports: [PageSessionSigning],
})
export class PortalModule {}
