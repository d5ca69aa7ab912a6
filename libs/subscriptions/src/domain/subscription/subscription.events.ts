import type { DomainEvent } from '#shared/decider.js';
import type { MetaData } from '#shared/meta-data.js';
import type { SubscriptionFields, SubscriptionStatus } from './subscription.state.js';

/** What every subscription event carries. */
export type SubscriptionBase = { id: string; customer: string; status: SubscriptionStatus; meta_data: MetaData };
export type SubscriptionCreated = DomainEvent<
  'subscription.created' | 'subscription.scheduled',
  SubscriptionFields & { id: string; account_id: string; is_test: boolean; created_at: string; first_collection: string | null }
>;
export type SubscriptionActivated = DomainEvent<'subscription.activated', SubscriptionBase & { activated_at: string; collection: string }>;
export type SubscriptionUpdated = DomainEvent<
  'subscription.updated',
  SubscriptionBase & { changes: Partial<SubscriptionFields>; reason: string | null; /** Items the change removed. */ removed_items?: string[] }
>;
export type SubscriptionPendingCanceled = DomainEvent<'subscription.pending_canceled', SubscriptionBase & { cancel_at: string | null }>;
export type SubscriptionCanceled = DomainEvent<'subscription.canceled', SubscriptionBase & { canceled_at: string }>;
export type SubscriptionPaused = DomainEvent<'subscription.paused', SubscriptionBase & { paused_at: string; resumes_at: string | null }>;
export type SubscriptionResumed = DomainEvent<'subscription.resumed', SubscriptionBase & { resumed_at: string; next_renewal_date: string | null; cycle: number }>;
/** A cancellation scheduled for a later date (`cancel_at`) is withdrawn: the subscription goes on renewing. */
export type SubscriptionCancellationWithdrawn = DomainEvent<'subscription.cancellation_withdrawn', SubscriptionBase & { withdrawn_at: string; cancel_at: string }>;
/** A new cycle's period (renewals and starts). */
export type SubscriptionPeriod = { current_period_start: string; current_period_end: string; next_renewal_date: string; cycle: number };
export type SubscriptionRenewed = DomainEvent<
  'subscription.renewed',
  SubscriptionBase & SubscriptionPeriod & { collection: string; collections_count: number; renewed_at: string }
>;
export type SubscriptionStarted = DomainEvent<
  'subscription.started',
  SubscriptionBase & SubscriptionPeriod & { collection: string; collections_count: number; started_at: string; first_payment_expires_at: string | null; activated_at: string | null }
>;
export type SubscriptionReportUsage = DomainEvent<
  'subscription.report_usage',
  SubscriptionBase & { period_start: string | null; period_end: string; collect_at: string; items: Array<{ id: string; price: string; quantity: number }> }
>;
export type SubscriptionWillEnd = DomainEvent<'subscription.will_end', SubscriptionBase & { ends_at: string; remaining_collections: number }>;
export type SubscriptionEnded = DomainEvent<'subscription.ended', SubscriptionBase & { ended_at: string }>;
export type SubscriptionExpired = DomainEvent<'subscription.expired', SubscriptionBase & { expired_at: string; collection: string | null }>;
export type SubscriptionPastDue = DomainEvent<'subscription.past_due', SubscriptionBase & { collection: string }>;
export type SubscriptionUnpaid = DomainEvent<'subscription.unpaid', SubscriptionBase & { collection: string }>;

export type SubscriptionEvent =
  | SubscriptionCreated
  | SubscriptionActivated
  | SubscriptionUpdated
  | SubscriptionPendingCanceled
  | SubscriptionCanceled
  | SubscriptionPaused
  | SubscriptionResumed
  | SubscriptionCancellationWithdrawn
  | SubscriptionRenewed
  | SubscriptionStarted
  | SubscriptionReportUsage
  | SubscriptionWillEnd
  | SubscriptionEnded
  | SubscriptionExpired
  | SubscriptionPastDue
  | SubscriptionUnpaid;
