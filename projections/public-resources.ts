import { chargesProjection } from './charges.projection.js';
import { collectionsProjection } from './collections.projection.js';
import { couponsProjection } from './coupons.projection.js';
import { checkoutSessionsProjection } from './checkout-sessions.projection.js';
import { paymentLinksProjection, storefrontsProjection } from './payment-links.projection.js';
import { customersProjection } from './customers.projection.js';
import { paymentMethodsProjection } from './payment-methods.projection.js';
import { pricesProjection } from './prices.projection.js';
import { productsProjection } from './products.projection.js';
import type { Projection } from '#projection-runtime/projection.js';
import { subscriptionsProjection } from './subscriptions.projection.js';
import { testClocksProjection } from './test-clocks.projection.js';
import { creditNotesProjection, invoicesProjection } from './invoices.projection.js';
import { transactionsProjection } from './transactions.projection.js';
import { webhookEndpointsProjection } from './webhook-endpoints.projection.js';

/**
 * The projections of public resources (products, prices, customers, …). Each also tells the event
 * feed what `data.object` looks like after one of its events: the resource whose `object` name is
 * the event type's prefix (`charge.paid` → the charge).
 */
export function publicResourceProjections(): Projection[] {
  return [
    productsProjection,
    pricesProjection,
    customersProjection,
    paymentMethodsProjection,
    subscriptionsProjection,
    collectionsProjection,
    transactionsProjection,
    chargesProjection,
    testClocksProjection,
    couponsProjection,
    checkoutSessionsProjection,
    paymentLinksProjection,
    storefrontsProjection,
    webhookEndpointsProjection,
    invoicesProjection,
    creditNotesProjection,
  ] as Projection[];
}
