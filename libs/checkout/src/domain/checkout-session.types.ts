import type { DomainEvent } from '#shared/decider.js';
import type { MetaData } from '#shared/meta-data.js';
import type { Owner } from '#shared/owner.js';
import type { Discount, Item, LineInput } from '#collections/domain/pricing.js';
import type { BillingAddress } from '#customers/domain/customer.decider.js';
import type { PaymentSource } from '#collections/domain/collection/collection.state.js';

export type CheckoutMode = 'subscription' | 'payment' | 'setup';
export type CheckoutStatus = 'open' | 'complete' | 'expired';
export type PaymentStatus = 'unpaid' | 'processing' | 'paid' | 'no_payment_required';

export const CTA_TEXTS = ['Pagar', 'Suscribirse', 'Donar', 'Reservar'] as const;
export type CtaText = (typeof CTA_TEXTS)[number];

/** Stripe's range for `expires_at`: 30 minutes to 24 hours after creation; 24 hours by default. */
export const MIN_EXPIRY_MS = 30 * 60_000;
export const MAX_EXPIRY_MS = 24 * 3_600_000;
export const DEFAULT_EXPIRY_MS = MAX_EXPIRY_MS;

/** One-time e-mail codes: valid 10 minutes, 5 wrong tries, 5 codes per session. */
export const EMAIL_CODE_TTL_MS = 10 * 60_000;
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
export const EMAIL_CODES_PER_SESSION = 5;

/** A payment attempt in progress longer than this is presumed abandoned (its process stopped). */
export const STALE_PAYMENT_MS = 60_000;

export interface AfterCompletion {
  type: 'hosted' | 'redirect';
  redirect_url_approved: string | null;
  redirect_url_processing: string | null;
}

export interface SubscriptionSettings {
  duration: number | null;
  commitment_periods: number | null;
  trial_days: number | null;
}

export interface Invoicing {
  enabled: boolean;
  invoice_settings: {
    invoice_document_id: string | null;
    invoice_payment_method_credit: string | null;
    invoice_vendor: string | null;
    invoice_autoretention_tax_id: string | null;
    invoice_cost_center: string | null;
  };
}

export interface Consent {
  acceptance_required: boolean;
  terms_of_service: boolean;
  privacy_policy: boolean;
  /** Recorded when the customer accepts. */
  ip_address: string | null;
  user_agent: string | null;
  accepted_at: string | null;
}

export interface CustomField {
  key: string;
  type: 'text' | 'options';
  label: string;
  options: string[];
  required: boolean;
  /** What the customer entered. */
  value: string | null;
}

export type ShippingAddress = BillingAddress & { name: string | null };

/** A discount on the session, and whether the customer typed it (removable) and which coupon it redeems. */
export type SessionDiscount = Discount & { duration_in_collections: number | null; coupon: string | null; applied_by: 'merchant' | 'customer' };

export interface LastPayment {
  status: 'in_progress' | 'paid' | 'declined' | 'processing';
  started_at: string;
  message: string | null;
  failure_code: string | null;
  decline_code: string | null;
  additional_data: Record<string, unknown> | null;
}

/**
 * What an attempt to pay a session will use, recorded on the session before the gateway is called:
 * the ids of what it makes when approved (subscription or collection, the collection's transaction)
 * and of its gateway-level charges (each charge id is that charge's idempotency key at the gateway),
 * the source it charges (a stored or tokenized method, or the details of a method needing customer
 * action: never card data) and the amount. Internal: never in the session's public object.
 */
export interface AttemptPlan {
  subscription: string | null;
  collection: string | null;
  transaction: string;
  /** The first charge's id: the gateway's idempotency key. */
  charge: string;
  source: PaymentSource;
  amount: string;
}

export interface SessionAttempt extends Omit<AttemptPlan, 'charge'> {
  charges: Array<{ id: string; try: number }>;
  /** `in_progress` until the gateway's answer is recorded; `finished` once what it pays for is made. */
  status: 'in_progress' | 'paid' | 'processing' | 'declined';
  finished: boolean;
}

/** The spec's Checkout session resource (plus `object`, `locale`, `collection`, origin and progress fields). */
export interface CheckoutSessionFields {
  mode: CheckoutMode;
  currency: string;
  customer: string | null;
  after_completion: AfterCompletion;
  items: Item[];
  subtotal: string;
  total: string;
  meta_data: MetaData;
  status: CheckoutStatus;
  internal_reference_id: string | null;
  payment_status: PaymentStatus;
  expires_at: string;
  created_date: string;
  updated_date: string;
  discounts: SessionDiscount[];
  subscription_settings: SubscriptionSettings | null;
  shipping_address_collection: boolean;
  shipping_address_countries: string[] | null;
  shipping_cost: boolean;
  /** Ours: the shipping charge when `shipping_cost` is true (mode payment). */
  shipping_amount: string | null;
  shipping_address: ShippingAddress | null;
  cta_text: CtaText;
  payment_methods: Record<string, string[]> | null;
  is_test: boolean;
  url: string;
  subscription: string | null;
  collection: string | null;
  payment_method: string | null;
  invoicing: Invoicing | null;
  setup_subscription_id: string | null;
  description: string | null;
  consent: Consent;
  custom_fields: CustomField[];
  locale: 'es-CO' | 'en';
  payment_link: string | null;
  storefront: string | null;
  completed_at: string | null;
  expired_at: string | null;
  last_payment: LastPayment | null;
  test_clock: string | null;
  /**
   * Internal (not public): an attempt whose outcome is not recorded yet, or approved but whose
   * subscription or collection is not made yet — the session's deadline then resumes it.
   */
  _attempt_pending?: boolean;
  /** Internal: a complete session whose payment failed has ended what it left (`checkout_payment.lapsed`). */
  _lapsed?: boolean;
  /** Internal: the buyer's entries were forgotten (`checkout_buyer.forgotten`), when. */
  _buyer_forgotten_at?: string;
}

/** What the handler looked up for a create: priced lines, resolved coupons, the account's gateways, the customer, the subscription to set up. */
export interface CreateCheckoutSessionInput {
  mode: CheckoutMode;
  currency?: string;
  customer?: string | null;
  after_completion?: Partial<AfterCompletion>;
  /** Lines with their price snapshots and rates (the handler looked them up). */
  lines: LineInput[];
  payment_methods?: Record<string, string[]> | null;
  discounts: Array<{ code: string; amount: string | null; percent: string | null; duration_in_collections: number | null; coupon: string | null }>;
  subscription_settings?: Partial<SubscriptionSettings> | null;
  setup_subscription_id?: string | null;
  meta_data?: MetaData;
  shipping_address_collection?: boolean;
  shipping_address_countries?: string[] | null;
  shipping_cost?: boolean;
  shipping_amount?: string | null;
  cta_text?: string;
  invoicing?: { enabled?: boolean; invoice_settings?: Partial<Invoicing['invoice_settings']> } | null;
  description?: string | null;
  consent?: Partial<Pick<Consent, 'acceptance_required' | 'terms_of_service' | 'privacy_policy'>> & Record<string, unknown>;
  custom_fields?: Array<Partial<Omit<CustomField, 'value'>>>;
  internal_reference_id?: string | null;
  expires_at?: string;
  locale?: string;
  payment_link?: string | null;
  storefront?: string | null;
}

export interface CreateFacts {
  /** Gateways configured on the account in this mode. */
  configuredGateways: string[];
  /** The customer, when one was named: exists and belongs to the caller. */
  customer: { id: string; test_clock: string | null } | null;
  /** The subscription of `setup_subscription_id`, when it belongs to the caller. */
  setupSubscription: { id: string; customer: string; status: string } | null;
}

/** What the customer submits on the page (consent, custom fields, shipping, the ntp amount). */
export interface DetailsInput {
  consent?: { terms_of_service?: boolean; privacy_policy?: boolean };
  custom_fields?: Record<string, string>;
  shipping_address?: Partial<ShippingAddress>;
  ntp_amount?: string;
  ip_address: string | null;
  user_agent: string | null;
}

export type CheckoutSessionCommand =
  | { type: 'CreateCheckoutSession'; owner: Owner; sessionId: string; input: CreateCheckoutSessionInput; facts: CreateFacts; url: string; expiresAt: string; now: Date }
  | { type: 'SendEmailCode'; owner: Owner; sessionId: string; email: string; customerId: string; codeHash: string; now: Date }
  | { type: 'VerifyEmailCode'; owner: Owner; sessionId: string; codeHash: string; now: Date }
  | { type: 'AskNewCustomer'; owner: Owner; sessionId: string; email: string; now: Date }
  | { type: 'IdentifyCustomer'; owner: Owner; sessionId: string; customerId: string; email: string; now: Date }
  | { type: 'ApplyDiscount'; owner: Owner; sessionId: string; discount: SessionDiscount; now: Date }
  | { type: 'RemoveDiscount'; owner: Owner; sessionId: string; code: string; now: Date }
  | { type: 'SaveDetails'; owner: Owner; sessionId: string; details: DetailsInput; now: Date }
  /**
   * The customer pays for the first time: everything required is checked, then the attempt starts
   * (`checkout_payment.started`, internal); the session stays `open` until the payment is approved.
   */
  | { type: 'StartCheckoutPayment'; owner: Owner; sessionId: string; details: DetailsInput; method: { gateway: string; type: string }; attempt: AttemptPlan | null; now: Date }
  /** Pay again after a decline (open session, declined attempt): one attempt at a time. */
  | { type: 'StartPaymentRetry'; owner: Owner; sessionId: string; method: { gateway: string; type: string }; attempt: AttemptPlan | null; now: Date }
  /** The gateway asked for a second try of the attempt's charge (a technical failure): its charge id, recorded before it is made. */
  | { type: 'RetryAttemptCharge'; owner: Owner; sessionId: string; chargeId: string; now: Date }
  | { type: 'RecordPaymentOutcome'; owner: Owner; sessionId: string; outcome: PaymentOutcome; now: Date }
  /** What the approved attempt pays for is made (its subscription or collection, the charge recorded on it). */
  | { type: 'FinishAttempt'; owner: Owner; sessionId: string; now: Date }
  /** `expected`: the `expires_at` the deadline was set for (null from the API's expire operation). */
  | { type: 'ExpireCheckoutSession'; owner: Owner; sessionId: string; expected: string | null; now: Date }
  /** The buyer's entries of a session never tied to a customer are forgotten (its key was destroyed just before): see `buyerDataDeadline`. */
  | { type: 'ForgetBuyer'; owner: Owner; sessionId: string; now: Date };

export interface PaymentOutcome {
  status: 'paid' | 'declined' | 'processing' | 'saved';
  collection: string | null;
  subscription: string | null;
  payment_method: string | null;
  message: string | null;
  failure_code: string | null;
  decline_code: string | null;
  additional_data: Record<string, unknown> | null;
}

type Envelope = { id: string; account_id: string; is_test: boolean; created_at: string };
export type CheckoutSessionCreated = DomainEvent<'checkout_session.created', CheckoutSessionFields & Envelope & { _lines: LineInput[] }>;
export type CheckoutSessionUpdated = DomainEvent<'checkout_session.updated', { id: string; changes: Partial<CheckoutSessionFields>; updated_at: string; reason: string }>;
export type CheckoutSessionCompleted = DomainEvent<
  'checkout_session.completed',
  {
    id: string;
    customer: string;
    subscription: string | null;
    collection: string | null;
    /** `paid` (or `no_payment_required` in setup mode): a session completes when it is paid (older histories hold `unpaid`). */
    payment_status: PaymentStatus;
    /** The method that paid (absent in older histories). */
    payment_method?: string | null;
    completed_at: string;
    last_payment: LastPayment;
    meta_data: MetaData;
  }
>;
/** Written before `open` → `complete` was only on payment; kept to read those sessions' histories. */
export type CheckoutSessionPaymentUpdated = DomainEvent<
  'checkout_session.payment_updated',
  { id: string; payment_status: PaymentStatus; collection: string | null; subscription: string | null; payment_method: string | null; last_payment: LastPayment; updated_at: string; meta_data: MetaData }
>;
/** `collection` / `subscription`: what an attempt of the session left behind unpaid (voided / expired by the follow-up). */
export type CheckoutSessionExpired = DomainEvent<'checkout_session.expired', { id: string; expired_at: string; collection: string | null; subscription?: string | null; meta_data: MetaData }>;
/** Internal (not in the feed): identification and payment progress. */
export type CheckoutEmailCodeSent = DomainEvent<'checkout_signin.code_sent', { id: string; email: string; customer: string; code_hash: string; expires_at: string; sent_at: string }>;
export type CheckoutEmailCodeFailed = DomainEvent<'checkout_signin.code_failed', { id: string; attempts: number }>;
export type CheckoutNewCustomerAsked = DomainEvent<'checkout_signin.new_customer', { id: string; email: string }>;
export type CheckoutPaymentRetried = DomainEvent<'checkout_payment.retried', { id: string; last_payment: LastPayment; attempt?: AttemptPlan | null }>;
/**
 * The first attempt of an open session starts: the customer and the attempt's plan (`attempt`, its
 * ids and source; older histories named the subscription or collection it made instead).
 */
export type CheckoutPaymentStarted = DomainEvent<
  'checkout_payment.started',
  { id: string; customer: string; subscription: string | null; collection: string | null; last_payment: LastPayment; started_at: string; attempt?: AttemptPlan | null }
>;
export type CheckoutPaymentChargeRetried = DomainEvent<'checkout_payment.charge_retried', { id: string; charge: string; try: number }>;
export type CheckoutPaymentFinished = DomainEvent<'checkout_payment.finished', { id: string; finished_at: string }>;
/** A session completed with a payment that then failed (or completed unpaid under the earlier rule): at `expires_at` what it left ends; the session stays complete. */
export type CheckoutPaymentLapsed = DomainEvent<'checkout_payment.lapsed', { id: string; lapsed_at: string; collection: string | null; subscription: string | null }>;
/** Internal (never in the feed): the session's key was destroyed; its personal values read as placeholders from now on (docs/personal-data.md). */
export type CheckoutBuyerForgotten = DomainEvent<'checkout_buyer.forgotten', { id: string; forgotten_at: string }>;
/** Public: an attempt of an open session was declined (nothing was made for it); the session stays open and may be paid again. */
export type CheckoutSessionPaymentFailed = DomainEvent<
  'checkout_session.payment_failed',
  { id: string; payment_status: PaymentStatus; payment_method: string | null; last_payment: LastPayment; updated_at: string; meta_data: MetaData }
>;
/** An attempt of an open session ended without paying it: declined (`unpaid`), or awaiting the customer's bank or transfer (`processing`). */
export type CheckoutPaymentUpdated = DomainEvent<
  'checkout_payment.updated',
  { id: string; payment_status: PaymentStatus; collection: string | null; subscription: string | null; payment_method: string | null; last_payment: LastPayment; updated_at: string }
>;

export type CheckoutSessionEvent =
  | CheckoutSessionCreated
  | CheckoutSessionUpdated
  | CheckoutSessionCompleted
  | CheckoutSessionPaymentUpdated
  | CheckoutSessionExpired
  | CheckoutEmailCodeSent
  | CheckoutEmailCodeFailed
  | CheckoutNewCustomerAsked
  | CheckoutPaymentRetried
  | CheckoutPaymentStarted
  | CheckoutPaymentUpdated
  | CheckoutPaymentChargeRetried
  | CheckoutPaymentFinished
  | CheckoutPaymentLapsed
  | CheckoutBuyerForgotten
  | CheckoutSessionPaymentFailed;

export interface SignIn {
  step: 'email' | 'code' | 'new_customer' | 'done';
  email: string | null;
  customer: string | null;
  codeHash: string | null;
  expiresAt: string | null;
  attempts: number;
  codesSent: number;
}

export interface CheckoutSessionState {
  exists: boolean;
  owner: Owner | null;
  fields: CheckoutSessionFields | null;
  lines: LineInput[];
  signIn: SignIn;
  /** The session's latest payment attempt (internal), when it was planned with one. */
  attempt: SessionAttempt | null;
}

export const checkoutSessionStream = (id: string) => `checkoutsession-${id}`;
