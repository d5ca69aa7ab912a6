import type { OwnedDoc } from '#platform/read-models.js';
import type { DeadlineFields } from '#shared/deadlines.js';
import type { CollectionFields } from '../domain/collection.decider.js';

/** Since when a payment has awaited the customer (`processing`); null otherwise. */
type Processing = { _processing_since?: string | null; _collecting_since?: string | null };

/** Why the latest attempt failed (Stripe's `last_payment_error`): a decline, or an attempt that could not reach a gateway (`payment_method_missing`, …); null once paid. */
type LastPaymentError = { last_payment_error?: { code: string; message: string; decline_code: string | null; charge: string | null } | null };

/** What the collection still asks: its total (lowered by registered payments and credit notes) while it can be paid; 0 once closed. */
type AmountDue = { amount_due?: string };

export type CollectionDoc = OwnedDoc & CollectionFields & DeadlineFields & Processing & LastPaymentError & AmountDue & { object: 'collection'; created_date: string };
