import type { OwnedDoc } from '#platform/read-models.js';
import type { CustomerFields } from '../domain/customer.decider.js';

/** `_email`: the email trimmed and lower-cased, for the exact case-insensitive `email` filter. */
export type CustomerDoc = OwnedDoc & CustomerFields & { object: 'customer'; created_date: string; _email?: string };
