import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { AccountsModule } from '../../../libs/accounts/src/accounts.module.js';
import { BasicAuthGuard } from '../../../libs/accounts/src/http/basic-auth.guard.js';
import { CatalogModule } from '../../../libs/catalog/src/catalog.module.js';
import { CustomersModule } from '../../../libs/customers/src/customers.module.js';
import { EventsModule } from '../../../libs/events/src/events.module.js';
import { CouponsModule } from '../../../libs/coupons/src/coupons.module.js';
import { CheckoutModule } from '../../../libs/checkout/src/checkout.module.js';
import { CollectionsModule } from '../../../libs/collections/src/collections.module.js';
import { PaymentsModule } from '../../../libs/payments/src/payments.module.js';
import { SubscriptionsModule } from '../../../libs/subscriptions/src/subscriptions.module.js';
import { TestClocksModule } from '../../../libs/test-clocks/src/test-clocks.module.js';
import { SchedulingModule } from '../../../libs/scheduling/src/scheduling.module.js';
import { WebhooksModule } from '../../../libs/webhooks/src/webhooks.module.js';
import { InvoicingModule } from '../../../libs/invoicing/src/invoicing.module.js';
import { CountryParametersModule } from '../../../libs/country-parameters/src/country-parameters.module.js';
import { ApiExceptionFilter } from '../../../libs/http/src/api-exception.filter.js';
import { IdempotencyInterceptor } from '../../../libs/http/src/idempotency.js';
import { IdempotencyPruner } from '../../../libs/http/src/idempotency-pruner.js';
import { apiValidationPipe } from '../../../libs/http/src/validation.js';
import { PlatformModule, type PlatformOptions } from '../../../libs/platform/src/platform.module.js';
import { WebModule } from '../../../libs/web/src/web.module.js';
import { PortalModule } from '../../../libs/portal/src/portal.module.js';
import { DashboardModule } from '../../../libs/dashboard/src/dashboard.module.js';
import { MailModule } from '../../../libs/mail/src/mail.module.js';
import { CheckoutPagesModule } from '../../../libs/checkout-pages/src/checkout-pages.module.js';
import { HealthController } from './health.controller.js';
import { MetricsController } from './metrics.controller.js';

/** The whole service: every bounded context on one platform (ports chosen by configuration). */
@Module({})
export class AppModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot(), PlatformModule.forRoot(options), AccountsModule, CatalogModule, CustomersModule, EventsModule, PaymentsModule, CollectionsModule, SubscriptionsModule, SchedulingModule, TestClocksModule, WebModule, PortalModule, DashboardModule, CouponsModule, CheckoutModule, MailModule, CheckoutPagesModule, WebhooksModule, InvoicingModule, CountryParametersModule],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: APP_GUARD, useExisting: BasicAuthGuard },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_PIPE, useFactory: apiValidationPipe },
        IdempotencyPruner,
      ],
    };
  }
}
