import type { OwnedDoc } from '#platform/read-models.js';
import type { DeadlineFields } from '#shared/deadlines.js';
import type { CheckoutSessionFields } from '../domain/checkout-session.decider.js';

/** A checkout session as the `checkout_sessions` read model holds it, with its deadline for the scheduler. */
export type CheckoutSessionDoc = OwnedDoc & CheckoutSessionFields & DeadlineFields & { object: 'checkout_session' };
