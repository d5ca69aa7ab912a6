import type { MetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';
import type { BillingPeriod } from '#catalog/domain/price.decider.js';
import type { Discount, PriceSnapshot, ProductSnapshot } from '#collections/domain/pricing.js';
import type { InvoiceRetentions, InvoiceSettings } from '#collections/domain/collection.decider.js';

export const SUBSCRIPTION_STATUSES = [
  'incomplete',
  'trialing',
  'scheduled',
  'active',
  'past_due',
  'unpaid',
  'paused',
  'pending_cancel',
  'canceled',
  'ended',
  'expired',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** The first-payment window of a `charge` subscription (the spec's "about 23 hours"). */
export const FIRST_PAYMENT_WINDOW_HOURS = 23;

/** States in which nothing more can happen to a subscription. */
export const FINAL_STATES: SubscriptionStatus[] = ['canceled', 'ended', 'expired'];

export interface SubscriptionItem {
  id: string;
  price: PriceSnapshot;
  product: ProductSnapshot;
  quantity: number;
  /** `ntp` prices: the amount the customer chose. */
  amount: string | null;
}

export interface SubscriptionDiscount extends Discount {
  /** Cycles the discount applies to; null = every cycle. */
  duration_in_collections: number | null;
}

export interface Shipping {
  name: string;
  phone: string | null;
  address: { address_1: string; address_2: string | null; city: string; state: string; postcode: string | null; country: string };
}

export interface ShippingItem {
  description: string;
  amount: string;
}

export interface SubscriptionFields {
  customer: string;
  status: SubscriptionStatus;
  items: SubscriptionItem[];
  currency: string;
  billing_period: BillingPeriod;
  billing_interval: number;
  collection_method: 'charge' | 'collect';
  payment_method: string | null;
  /** Only `gateway` and `type` are kept (never card data). */
  payment_information: { gateway: string; type: string } | null;
  days_until_due: number | null;
  first_payment_invoicing: 'create' | 'after';
  renewal_invoicing: boolean;
  schedule_date: string | null;
  trial_days: number | null;
  trial_end: string | null;
  duration: number | null;
  commitment_periods: number | null;
  usage_based: boolean;
  discounts: SubscriptionDiscount[];
  switch_to_charge: boolean;
  invoice_settings: InvoiceSettings;
  invoice_retentions: InvoiceRetentions;
  meta_data: MetaData;
  latest_collection: string | null;
  next_renewal_date: string | null;
  current_period_start: string | null;
  current_period_end: string | null;
  billing_cycle_anchor: string | null;
  /** Billing cycles collected so far (a trial's first collection is not a cycle). */
  collections_count: number;
  /** `incomplete` only: when the first-payment window closes. */
  first_payment_expires_at: string | null;
  /**
   * Internal (never in the API): the checkout session that sold it. Its window is the session's
   * `expires_at`, and the session's expiry (not a deadline of its own) expires it, so a payment the
   * customer still makes on the open session is never refused by the subscription's window.
   */
  _checkout_session?: string | null;
  activated_at: string | null;
  cancel_at: string | null;
  canceled_at: string | null;
  paused_at: string | null;
  resumes_at: string | null;
  ended_at: string | null;
  shipping: Shipping | null;
  shipping_item: ShippingItem | null;
  migrated: boolean;
  /** The test clock whose time this subscription lives by (test mode only); null: real time. */
  test_clock: string | null;
  /** Cycle boundaries passed since `billing_cycle_anchor` (`next_renewal_date` is boundary `cycle`). */
  cycle: number;
  /** usage_based: the renewal whose usage was asked for (`subscription.report_usage`), and when its collection is made. */
  usage_reported_for: string | null;
  usage_collect_at: string | null;
  expired_at: string | null;
}

export interface SubscriptionState {
  exists: boolean;
  owner: Owner | null;
  fields: SubscriptionFields | null;
  /** The trial's zero-amount first collection: paying it does not activate. */
  trialCollection: string | null;
}

/** A subscription before its first event. */
export const initialSubscriptionState: SubscriptionState = { exists: false, owner: null, fields: null, trialCollection: null };

export const subscriptionStream = (id: string) => `subscription-${id}`;

/** The deadline a subscription waits for, if any: what time will do to it next, and when. */
export type SubscriptionDeadlineKind = 'renew' | 'expire' | 'cancel' | 'resume';
export function subscriptionDeadline(f: SubscriptionFields): { kind: SubscriptionDeadlineKind; at: string } | null {
  switch (f.status) {
    case 'incomplete':
      // Sold by a checkout session: the session's expiry expires it (checkout-follow-ups), not a deadline of its own.
      if (f._checkout_session) return null;
      return f.first_payment_expires_at ? { kind: 'expire', at: f.first_payment_expires_at } : null;
    case 'scheduled':
    case 'trialing':
    case 'active':
    case 'past_due':
      // Overdue while a cancellation was scheduled: the cancellation still comes at its date.
      if (f.status === 'past_due' && f.cancel_at && (!f.next_renewal_date || f.cancel_at <= f.next_renewal_date)) return { kind: 'cancel', at: f.cancel_at };
      if (!f.next_renewal_date) return null;
      if (f.usage_based && f.usage_reported_for === f.next_renewal_date && f.usage_collect_at) return { kind: 'renew', at: f.usage_collect_at };
      return { kind: 'renew', at: f.next_renewal_date };
    case 'pending_cancel':
      // Cancelled at the end of a commitment: the committed periods before `cancel_at` still renew.
      if (f.cancel_at && f.next_renewal_date && f.next_renewal_date < f.cancel_at) return { kind: 'renew', at: f.next_renewal_date };
      return f.cancel_at ? { kind: 'cancel', at: f.cancel_at } : null;
    case 'paused':
      return f.resumes_at ? { kind: 'resume', at: f.resumes_at } : null;
    case 'unpaid':
      return f.cancel_at ? { kind: 'cancel', at: f.cancel_at } : null;
    default:
      return null;
  }
}
