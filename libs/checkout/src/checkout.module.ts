import { Module } from '@nestjs/common';
import { AccountsModule } from '#accounts/accounts.module.js';
import { CouponsModule } from '#coupons/coupons.module.js';
import { SchedulingModule } from '#scheduling/scheduling.module.js';
import { SubscriptionsModule } from '#subscriptions/subscriptions.module.js';
import { CustomerEmailClaims } from '#customers/application/customer-email-claims.js';
import { CheckoutFollowUps } from './application/checkout-follow-ups.js';
import { ExpireCheckoutSessionHandler, GetCheckoutSessionHandler, ListCheckoutSessionsHandler } from './application/checkout-session-queries.js';
import { CheckoutTokens } from './application/checkout-tokens.js';
import { CreateCheckoutSessionHandler, OpenCheckoutSession } from './application/create-checkout-session.js';
import { HostedCheckout } from './application/hosted-checkout.js';
import { CheckoutMailFallback, HostedCheckoutService } from './application/hosted-checkout.service.js';
import { PayCheckoutSession } from './application/pay-checkout-session.js';
import {
  CreatePaymentLinkHandler,
  CreateStorefrontHandler,
  GetPaymentLinkHandler,
  GetStorefrontHandler,
  ListPaymentLinksHandler,
  ListStorefrontsHandler,
  UpdatePaymentLinkHandler,
  UpdateStorefrontHandler,
} from './application/payment-link-commands.js';
import { PaymentLinkPages } from './application/payment-link-pages.js';
import { SessionViews } from './application/session-views.js';
import { CheckoutSessionsController } from './http/checkout-sessions.controller.js';
import { PaymentLinksController, StorefrontsController } from './http/payment-links.controller.js';

/**
 * Hosted checkout: checkout sessions, payment links, storefronts (API and the application service
 * the hosted pages call). Pages inject `HostedCheckout` (application/hosted-checkout.ts). E-mail goes
 * through the MAIL port when a module provides it, else to an in-memory outbox (CheckoutMailFallback).
 */
@Module({
  imports: [AccountsModule, SubscriptionsModule, CouponsModule, SchedulingModule],
  controllers: [CheckoutSessionsController, PaymentLinksController, StorefrontsController],
  providers: [
    CheckoutTokens,
    OpenCheckoutSession,
    CreateCheckoutSessionHandler,
    GetCheckoutSessionHandler,
    ListCheckoutSessionsHandler,
    ExpireCheckoutSessionHandler,
    PayCheckoutSession,
    SessionViews,
    PaymentLinkPages,
    CheckoutFollowUps,
    CheckoutMailFallback,
    CustomerEmailClaims,
    CreatePaymentLinkHandler,
    UpdatePaymentLinkHandler,
    GetPaymentLinkHandler,
    ListPaymentLinksHandler,
    CreateStorefrontHandler,
    UpdateStorefrontHandler,
    GetStorefrontHandler,
    ListStorefrontsHandler,
    { provide: HostedCheckout, useClass: HostedCheckoutService },
  ],
  exports: [HostedCheckout, CheckoutMailFallback],
})
export class CheckoutModule {}
