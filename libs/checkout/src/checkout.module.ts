import { Module } from '@nestjs/common';
import { HostedCheckout } from './application/hosted-checkout.js';
import { HostedCheckoutService } from './application/hosted-checkout.service.js';

/**
 * Hosted checkout: checkout sessions, payment links, storefronts (API and the application service
 * the hosted pages call). Pages inject `HostedCheckout` (application/hosted-checkout.ts).
 */
@Module({
  providers: [{ provide: HostedCheckout, useClass: HostedCheckoutService }],
  exports: [HostedCheckout],
})
export class CheckoutModule {}
