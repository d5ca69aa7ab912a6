/**
 * The event types of the public `evt_` feed (`GET /v1/events`, the webhooks), by resource. An event
 * reaches the feed when its type's prefix is the `object` name of a public resource
 * (projections/public-resources.ts writes its entry: `charge.paid` → the charge); every other event
 * (`account.*`, `delivery.*`, claims and reservations, sign-in steps…) is internal and never leaves
 * the service. test/http/public-event-types.spec.ts checks this list against the domain's event
 * types, so a new public type cannot be left out of it.
 *
 * Webhook endpoints' `enabled_events` accept these types, `<prefix>.*` for a prefix of them, and `*`
 * (anything else is refused); the OpenAPI document lists the same values.
 */
export const PUBLIC_EVENT_TYPES = [
  'charge.created',
  'charge.failed',
  'charge.paid',
  'charge.pending',
  'checkout_session.completed',
  'checkout_session.created',
  'checkout_session.expired',
  'checkout_session.payment_failed',
  'checkout_session.payment_updated',
  'checkout_session.updated',
  'collection.created',
  'collection.credit_reversed',
  'collection.credited',
  'collection.invoice_attached',
  'collection.paid',
  'collection.partial_payment_defined',
  'collection.past_due',
  'collection.payment_applied',
  'collection.payment_failed',
  'collection.refunded',
  'collection.reminder',
  'collection.sent',
  'collection.total_updated',
  'collection.uncollectible',
  'collection.updated',
  'collection.voided',
  'coupon.created',
  'coupon.deleted',
  'coupon.redeemed',
  'coupon.redemption_released',
  'coupon.updated',
  'credit_note.created',
  'credit_note.issuance_failed',
  'credit_note.issued',
  'credit_note.voided',
  'customer.created',
  'customer.erased',
  'customer.updated',
  'invoice.created',
  'invoice.credit_reversed',
  'invoice.credited',
  'invoice.issuance_failed',
  'invoice.issued',
  'invoice.paid',
  'invoice.payment_recorded',
  'invoice.voided',
  'payment_link.created',
  'payment_link.updated',
  'payment_link.use_released',
  'payment_link.used',
  'payment_method.created',
  'payment_method.deleted',
  'payment_method.updated',
  'price.created',
  'price.deleted',
  'price.updated',
  'product.created',
  'product.deleted',
  'product.updated',
  'storefront.created',
  'storefront.updated',
  'subscription.activated',
  'subscription.canceled',
  'subscription.cancellation_withdrawn',
  'subscription.created',
  'subscription.ended',
  'subscription.expired',
  'subscription.past_due',
  'subscription.paused',
  'subscription.pending_canceled',
  'subscription.renewed',
  'subscription.report_usage',
  'subscription.resumed',
  'subscription.started',
  'subscription.unpaid',
  'subscription.updated',
  'subscription.will_end',
  'test_clock.advancing',
  'test_clock.created',
  'test_clock.deleted',
  'test_clock.ready',
  'transaction.created',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'webhook_endpoint.disabled',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.test',
  'webhook_endpoint.updated',
] as const;

export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

const TYPES: ReadonlySet<string> = new Set(PUBLIC_EVENT_TYPES);

/** The resources whose events are public (`charge`, `subscription`, …): the prefixes a `prefix.*` pattern may name. */
export const PUBLIC_EVENT_PREFIXES: readonly string[] = [...new Set(PUBLIC_EVENT_TYPES.map((t) => t.slice(0, t.indexOf('.'))))];

/** Every value `enabled_events` accepts: `*`, each prefix's `prefix.*`, each type. */
export const EVENT_PATTERNS: readonly string[] = ['*', ...PUBLIC_EVENT_PREFIXES.map((p) => `${p}.*`), ...PUBLIC_EVENT_TYPES];

const PATTERNS: ReadonlySet<string> = new Set(EVENT_PATTERNS);

export function isPublicEventType(type: string): type is PublicEventType {
  return TYPES.has(type);
}

/** Is `pattern` a public type, `prefix.*` for a public prefix, or `*`? */
export function isEventPattern(pattern: string): boolean {
  return PATTERNS.has(pattern);
}
