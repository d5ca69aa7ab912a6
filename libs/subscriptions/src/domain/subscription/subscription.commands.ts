import type { MetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';
import type { PriceSnapshot, ProductSnapshot } from '#collections/domain/pricing.js';
import type { InvoiceRetentions, InvoiceSettings } from '#collections/domain/collection.decider.js';
import type { Shipping, ShippingItem } from './subscription.state.js';

/** One item of a create or update request, its price already looked up. */
export interface ItemInput {
  /** Existing item to change; absent for a new item (then `newId` names it). */
  id?: string;
  newId?: string;
  price?: PriceSnapshot;
  product?: ProductSnapshot;
  quantity?: number;
  amount?: string | null;
  deleted?: boolean;
}

export interface DiscountInput {
  code: string;
  amount?: string | null;
  percent?: string | null;
  duration_in_collections?: number | null;
}

export interface SubscriptionInput {
  customer: string;
  items: ItemInput[];
  currency?: string;
  collection_method?: 'charge' | 'collect';
  payment_method?: string | null;
  payment_information?: { gateway: string; type: string } | null;
  days_until_due?: number | null;
  first_payment_invoicing?: 'create' | 'after';
  renewal_invoicing?: boolean;
  schedule_date?: string | null;
  trial_days?: number | null;
  duration?: number | null;
  commitment_periods?: number | null;
  usage_based?: boolean;
  discounts?: DiscountInput[];
  switch_to_charge?: boolean;
  invoice_settings?: Partial<InvoiceSettings>;
  invoice_retentions?: Partial<InvoiceRetentions>;
  meta_data?: MetaData;
  /** Migration only. */
  next_renewal_date?: string;
  /** The customer's test clock (set by the handler, not the caller). */
  test_clock?: string | null;
}

export interface SubscriptionChanges {
  items?: ItemInput[];
  discounts?: DiscountInput[];
  payment_method?: string | null;
  meta_data?: MetaData;
  days_until_due?: number;
  renewal_invoicing?: boolean;
  invoice_settings?: Partial<InvoiceSettings>;
  invoice_retentions?: Partial<InvoiceRetentions>;
}

/** What the handler found out about the customer's payment methods (the decider cannot look). */
export interface PaymentMethodFacts {
  /** The customer's default method, if any. */
  customerDefault: string | null;
  /** Whether the `payment_method` sent (if any) is a usable stored method of this customer. */
  requestedUsable: boolean;
}

/** How item errors name their params: `items[0][price]` in a list, `price` on the item endpoints. */
export interface ItemNaming {
  field(index: number, name: string): string;
  /** What errors about the whole list (count, frequency, no recurring price) name. */
  whole: string;
}

export const ITEMS_LIST: ItemNaming = { field: (i, name) => `items[${i}][${name}]`, whole: 'items' };

export type SubscriptionCommand =
  | {
      type: 'CreateSubscription';
      owner: Owner;
      subscriptionId: string;
      firstCollectionId: string;
      discountIds: string[];
      input: SubscriptionInput;
      paymentMethods: PaymentMethodFacts;
      migrate: boolean;
      /** Sold by a checkout session: its first-payment window is the session's `expires_at`. */
      checkoutSession?: { id: string; expires_at: string } | null;
      now: Date;
    }
  | { type: 'RecordCollectionPaid'; owner: Owner; subscriptionId: string; collectionId: string; paymentMethod: string | null; tokenizable: boolean; now: Date }
  | {
      type: 'UpdateSubscription';
      owner: Owner;
      subscriptionId: string;
      changes: SubscriptionChanges;
      discountIds: string[];
      paymentMethods: PaymentMethodFacts;
      /** How errors name the items' fields (default: the `items` list of an update). */
      itemNaming?: ItemNaming;
      now: Date;
    }
  | { type: 'DeleteSubscriptionDiscount'; owner: Owner; subscriptionId: string; discountId: string; now: Date }
  | { type: 'CancelSubscription'; owner: Owner; subscriptionId: string; cancelAt: 'period_end' | 'now'; now: Date }
  | { type: 'PauseSubscription'; owner: Owner; subscriptionId: string; resumesAt: string | null; now: Date }
  | { type: 'ResumeSubscription'; owner: Owner; subscriptionId: string; now: Date }
  | { type: 'SetShipping'; owner: Owner; subscriptionId: string; shipping: Shipping | null; now: Date }
  | { type: 'SetShippingItem'; owner: Owner; subscriptionId: string; shippingItem: ShippingItem | null; now: Date }
  /**
   * Time reached `next_renewal_date` (`expected`, so that a second worker acting on the same deadline
   * decides nothing): start a scheduled subscription, end one whose `duration` is reached, ask a
   * usage-based one for its usage, or renew into `collectionId`.
   */
  | { type: 'RenewSubscription'; owner: Owner; subscriptionId: string; expected: string; collectionId: string; usageWaitMs: number; now: Date }
  /** The first-payment window of an `incomplete` subscription closed. */
  /** `checkoutExpired`: the checkout session that sold it expired unpaid first (its own window is shorter). */
  | { type: 'ExpireSubscription'; owner: Owner; subscriptionId: string; now: Date; checkoutExpired?: boolean }
  /** `pending_cancel` reached its `cancel_at`. */
  | { type: 'CancelAtPeriodEnd'; owner: Owner; subscriptionId: string; now: Date }
  /** A pause with `resumes_at` reached it. */
  | { type: 'ResumeOnSchedule'; owner: Owner; subscriptionId: string; now: Date }
  /** Its latest collection went past due / was given up on (retries exhausted). */
  | { type: 'MarkSubscriptionPastDue'; owner: Owner; subscriptionId: string; collectionId: string; now: Date }
  | { type: 'MarkSubscriptionUnpaid'; owner: Owner; subscriptionId: string; collectionId: string; now: Date };

export type CommandOf<T extends SubscriptionCommand['type']> = Extract<SubscriptionCommand, { type: T }>;
