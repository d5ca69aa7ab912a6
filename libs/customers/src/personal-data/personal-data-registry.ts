import type { Placeholder } from './pii-cipher.js';
import { placeholderOf } from './pii-cipher.js';

/**
 * Where a customer's personal data sits in the events that carry it, and whose it is
 * (docs/personal-data.md). The event store's decorator (personal-data-event-store.ts) encrypts
 * exactly these values on append under that customer's data key; on read it opens any encrypted
 * value wherever it sits, so a path moved by an upcaster still reads.
 *
 * A new event type that carries a customer's name, e-mail, phone, document number, address,
 * shipping or custom fields adds its entry here and in docs/personal-data.md
 * (test/customers/erasure.http.spec.ts searches the event store's files for a customer's values after
 * a life of subscription, shipping and collection: an unregistered copy fails it).
 */
export interface PersonalDataEntry {
  /**
   * Whose data it is, the subject of its key: a customer (`cus_…`), or a hosted checkout's session
   * (`cs_…`) for what a buyer enters there before being a known customer — erased with the customer
   * the session is identified as (null: none known, the event is left as it is).
   */
  customer(data: Record<string, unknown>): string | null;
  /** The personal values: a path in `data` (`*`: each element of an array) and the placeholder shown once the key is destroyed. */
  paths: ReadonlyArray<{ path: readonly string[]; placeholder: Placeholder }>;
  /**
   * Written after its subject was erased: true stores the placeholders instead (a record of what was
   * answered, not a fact about the person); otherwise the append is refused with `customer_erased`.
   */
  placeholderWhenErased?: boolean;
}

const text = placeholderOf('text');
const structure = placeholderOf('structure');
const map = placeholderOf('map');

const str = (v: unknown) => (typeof v === 'string' && v.startsWith('cus_') ? v : null);
/** A hosted checkout's session: what a buyer enters before being a known customer is its own subject, erased with the customer it identifies as. */
const session = (v: unknown) => (typeof v === 'string' && v.startsWith('cs_') ? v : null);

/** The customer's own fields, at the top of `customer.created` and under `changes` of `customer.updated`. */
const customerFields = (prefix: string[]) => [
  { path: [...prefix, 'email'], placeholder: text },
  { path: [...prefix, 'name'], placeholder: text },
  { path: [...prefix, 'phone'], placeholder: text },
  { path: [...prefix, 'document_number'], placeholder: text },
  { path: [...prefix, 'billing_address'], placeholder: structure },
  { path: [...prefix, 'meta_data'], placeholder: map },
];

/**
 * Whose personal data an idempotent POST's answer may hold: the customer it is (`object: "customer"`)
 * or names (`customer`, an id or an expanded customer), else a hosted checkout's session's own.
 */
function responseSubject(d: Record<string, unknown>): string | null {
  const body = (d.response as { body?: unknown } | undefined)?.body as Record<string, unknown> | null | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  if (body.object === 'customer') return str(body.id);
  const named = typeof body.customer === 'string' ? body.customer : (body.customer as { id?: unknown } | null | undefined)?.id;
  return str(named) ?? session(body.id);
}

export const PERSONAL_DATA: ReadonlyMap<string, PersonalDataEntry> = new Map<string, PersonalDataEntry>([
  ['customer.created', { customer: (d) => str(d.id), paths: customerFields([]) }],
  ['customer.updated', { customer: (d) => str(d.id), paths: customerFields(['changes']) }],
  ['subscription.created', { customer: (d) => str(d.customer), paths: [{ path: ['shipping'], placeholder: structure }] }],
  ['subscription.updated', { customer: (d) => str(d.customer), paths: [{ path: ['changes', 'shipping'], placeholder: structure }] }],
  // A collection copies the customer's billing address when made.
  ['collection.created', { customer: (d) => str(d.customer), paths: [{ path: ['billing_address'], placeholder: structure }] }],
  // The e-mail a buyer gave to identify as an existing customer on a hosted checkout.
  ['checkout_signin.code_sent', { customer: (d) => str(d.customer), paths: [{ path: ['email'], placeholder: text }] }],
  // …and of a buyer who is not a customer yet; what the buyer enters on the session (custom field values, the shipping address).
  ['checkout_signin.new_customer', { customer: (d) => session(d.id), paths: [{ path: ['email'], placeholder: text }] }],
  [
    'checkout_session.updated',
    {
      customer: (d) => session(d.id),
      paths: [
        { path: ['changes', 'custom_fields', '*', 'value'], placeholder: text },
        { path: ['changes', 'shipping_address'], placeholder: structure },
        // The proof of consent: where from and with what browser the buyer accepted.
        { path: ['changes', 'consent', 'ip_address'], placeholder: text },
        { path: ['changes', 'consent', 'user_agent'], placeholder: text },
      ],
    },
  ],
  // An Idempotency-Key's stored answer (libs/http/src/idempotency.ts): the whole body, under the key of
  // the customer (or session) it concerns; once erased, a replay finds the placeholder and says so.
  ['idempotency.completed', { customer: responseSubject, paths: [{ path: ['response', 'body'], placeholder: text }], placeholderWhenErased: true }],
]);
