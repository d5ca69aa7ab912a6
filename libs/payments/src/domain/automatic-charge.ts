import type { CardDetails } from './payment-method.decider.js';

/** Why an automatic attempt (a renewal, a dunning retry) could not even reach a gateway. */
export interface Unattemptable {
  failure_code: 'payment_method_missing' | 'expired_card' | 'gateway_not_configured';
  failure_message: string;
}

/** A card is valid through the last moment of its expiry month (UTC). */
export function cardExpired(card: Pick<CardDetails, 'exp_month' | 'exp_year'> | null | undefined, now: Date): boolean {
  if (!card || !Number.isInteger(card.exp_month) || !Number.isInteger(card.exp_year)) return false;
  return now.getTime() >= Date.UTC(card.exp_year, card.exp_month, 1);
}

export const NO_PAYMENT_METHOD: Unattemptable = {
  failure_code: 'payment_method_missing',
  failure_message: 'There is no payment method to charge: add one to the customer or the subscription, or pay the collection.',
};
