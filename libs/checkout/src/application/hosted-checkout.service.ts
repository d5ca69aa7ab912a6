import { Injectable } from '@nestjs/common';
import {
  type CheckoutDetailsInput,
  HostedCheckout,
  type HostedSessionView,
  type OpenedSession,
  type PageRequest,
  type PayInput,
  type PayOutcome,
  type PaymentLinkView,
  type StorefrontView,
} from './hosted-checkout.js';

const pending = (): never => {
  throw new Error('HostedCheckout: not implemented yet');
};

/** The implementation of the hosted pages' API (bodies land use case by use case). */
@Injectable()
export class HostedCheckoutService extends HostedCheckout {
  open(_token: string): Promise<HostedSessionView> { return pending(); }
  requestEmailCode(_t: string, _e: string, _r: PageRequest): Promise<HostedSessionView> { return pending(); }
  verifyEmailCode(_t: string, _c: string, _r: PageRequest): Promise<HostedSessionView> { return pending(); }
  createCustomer(_t: string, _i: { email: string; name: string }, _r: PageRequest): Promise<HostedSessionView> { return pending(); }
  applyCoupon(_t: string, _c: string, _r: PageRequest): Promise<HostedSessionView> { return pending(); }
  removeCoupon(_t: string, _c: string, _r: PageRequest): Promise<HostedSessionView> { return pending(); }
  saveDetails(_t: string, _i: CheckoutDetailsInput, _r: PageRequest): Promise<HostedSessionView> { return pending(); }
  pay(_t: string, _i: PayInput, _r: PageRequest): Promise<PayOutcome> { return pending(); }
  completion(_t: string): Promise<{ session: HostedSessionView; redirect_url: string | null }> { return pending(); }
  paymentLink(_id: string): Promise<PaymentLinkView> { return pending(); }
  openPaymentLink(_id: string, _r: PageRequest): Promise<OpenedSession> { return pending(); }
  storefront(_id: string): Promise<StorefrontView> { return pending(); }
  openStorefrontChoice(_id: string, _c: { price: string; quantity?: number }, _r: PageRequest): Promise<OpenedSession> { return pending(); }
}
