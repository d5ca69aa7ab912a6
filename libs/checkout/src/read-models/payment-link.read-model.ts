import type { OwnedDoc } from '#platform/read-models.js';
import type { PaymentLinkFields } from '../domain/payment-link.decider.js';

/** A link as the API shows it: its own fields with the session settings it passes on laid flat beside them. */
export type PaymentLinkDoc = OwnedDoc & Omit<PaymentLinkFields, 'settings'> & Record<string, unknown> & { object: 'payment_link'; created_date: string; _settings: PaymentLinkFields['settings'] };
