import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { AccountsModule } from '#accounts/accounts.module.js';
import { BasicAuthGuard } from '#accounts/http/basic-auth.guard.js';
import { CatalogModule } from '#catalog/catalog.module.js';
import { CustomersModule } from '#customers/customers.module.js';
import { EventsModule } from '#events/events.module.js';
import { CouponsModule } from '#coupons/coupons.module.js';
import { CheckoutModule } from '#checkout/checkout.module.js';
import { CollectionsModule } from '#collections/collections.module.js';
import { PaymentsModule } from '#payments/payments.module.js';
import { SubscriptionsModule } from '#subscriptions/subscriptions.module.js';
import { TestClocksModule } from '#test-clocks/test-clocks.module.js';
import { SchedulingModule } from '#scheduling/scheduling.module.js';
import { WebhooksModule } from '#webhooks/webhooks.module.js';
import { InvoicingModule } from '#invoicing/invoicing.module.js';
import { CountryParametersModule } from '#country-parameters/country-parameters.module.js';
import { ApiExceptionFilter } from '#http/api-exception.filter.js';
import { IdempotencyInterceptor } from '#http/idempotency.js';
import { IdempotencyPruner } from '#http/idempotency-pruner.js';
import { apiValidationPipe } from '#http/validation.js';
import { PlatformModule, type PlatformOptions } from '#platform/platform.module.js';
import { LeaseLifecycle } from '#platform/leases.js';
import { serviceProjections } from '#projections/index.js';
import { WebModule } from '#web/web.module.js';
import { PortalModule } from '#portal/portal.module.js';
import { DashboardModule } from '#dashboard/dashboard.module.js';
import { TeamModule } from '#team/team.module.js';
import { AnalyticsModule } from '#analytics/analytics.module.js';
import { MailModule } from '#mail/mail.module.js';
import { CheckoutPagesModule } from '#checkout-pages/checkout-pages.module.js';
import { AuditModule } from '#audit/audit.module.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';

/** The whole service: every bounded context on one platform (ports chosen by configuration). */
@Module({})
export class AppModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot(), PlatformModule.forRoot(options, serviceProjections), AccountsModule, CatalogModule, CustomersModule, EventsModule, PaymentsModule, CollectionsModule, SubscriptionsModule, SchedulingModule, TestClocksModule, WebModule, PortalModule, TeamModule, AnalyticsModule, DashboardModule, CouponsModule, CheckoutModule, MailModule, CheckoutPagesModule, WebhooksModule, InvoicingModule, CountryParametersModule, AuditModule],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: APP_GUARD, useExisting: BasicAuthGuard },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: apiValidationPipe },
        IdempotencyPruner,
        // Last to start (every unit registered and initialised), first to stop: see LeaseLifecycle.
        LeaseLifecycle,
      ],
    };
  }
}
