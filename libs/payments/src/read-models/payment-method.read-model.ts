import type { OwnedDoc } from '#platform/read-models.js';
import type { PaymentMethodFields } from '../domain/payment-method.decider.js';

/** A stored payment method as the `payment_methods` read model holds it (never its token). */
export type PaymentMethodDoc = OwnedDoc & PaymentMethodFields & { object: 'payment_method'; created_date: string };
