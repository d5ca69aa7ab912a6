/**
 * THE API OF THE HOSTED PAGES. Everything the customer-facing pages (`{checkout_url}/…`: the checkout
 * page, payment links `/pl/<id>`, storefronts `/sf/<id>`) do goes through `HostedCheckout`: the pages
 * hold no API key and no business rule; they render what these methods return and post what the
 * customer typed. Every method decides at the session's time (its customer's test clock, if any),
 * writes through the deciders (expected revisions: two tabs end with one effect) and answers once
 * the read models show the change.
 *
 * Addresses (built by the service, never by the page):
 *   session       `{checkout_url}/cs/<cs_id>#<token>`  — the fragment is the signed token. The page
 *                 reads it client-side (a small script posts it) or as a `?t=` fallback; the token is
 *                 what every call below takes, and it names the session: a tampered, unknown, foreign
 *                 (another session's) or expired token is refused with `CheckoutTokenError`.
 *   payment link  `{checkout_url}/pl/<pl_id>`   → `paymentLink` to show it (GET writes nothing), `openPaymentLink`
 *                 when the customer starts (the page's form posts), then redirect to the returned url.
 *   storefront    `{checkout_url}/sf/<sf_id>`   → `storefront` to list, `openStorefrontChoice` on a pick.
 *
 * Errors: `CheckoutTokenError` (status 404, code `checkout_token_invalid`, or 410 `checkout_token_expired`)
 * means "show the error page, reveal nothing". Any other `ApiError` (libs/shared/src/errors.ts) is a
 * refusal of what the customer sent (`code`, `param`, `message` in English): show it next to the
 * field named by `param` and let the customer correct it. Codes the pages may want to translate:
 *   email_code_invalid (with `attempts_left` in `extra`), email_code_expired, email_code_attempts_exceeded,
 *   coupon_invalid, coupon_expired, coupon_used_up, consent_required, custom_field_required,
 *   shipping_country_not_allowed, checkout_session_expired, checkout_session_complete,
 *   payment_in_progress (another tab is paying), payment_link_inactive, payment_link_used_up,
 *   customer_required (pay before identifying), payment_method_not_allowed.
 * A declined card is NOT an error: `pay` returns `{ status: 'declined', … }`.
 */
import type { PaymentInformation } from '#payments/gateways/payment-gateway.port.js';
import type { Discount, Item } from '#collections/domain/pricing.js';
import type { BillingAddress } from '#customers/domain/customer.decider.js';
import { ApiError } from '#shared/errors.js';

/** The token could not be trusted (tampered, unknown, foreign, expired): show the error page. */
export class CheckoutTokenError extends ApiError {
  constructor(reason: 'invalid' | 'expired') {
    super(
      reason === 'expired' ? 410 : 404,
      'invalid_request_error',
      reason === 'expired' ? 'checkout_token_expired' : 'checkout_token_invalid',
      reason === 'expired' ? 'This checkout link has expired.' : 'This checkout link is not valid.',
    );
    this.name = 'CheckoutTokenError';
  }
}

/** Who is on the page: recorded with consent; `request_id` travels into the events' metadata. */
export interface PageRequest {
  ip_address: string | null;
  user_agent: string | null;
  request_id?: string | null;
}

/** A custom field as the page shows it, with what the customer entered so far. */
export interface CustomFieldView {
  key: string;
  type: 'text' | 'options';
  label: string;
  options: string[];
  required: boolean;
  value: string | null;
}

/** Everything the checkout page shows. Amounts are decimal strings in `currency`. */
export interface HostedSessionView {
  id: string;
  /** `open`: show the form; `complete`: show the outcome / thank-you; `expired`: show the expired page. */
  status: 'open' | 'complete' | 'expired';
  /** `unpaid` (nothing paid yet, or declined), `processing` (async method awaiting the customer/bank), `paid`, `no_payment_required` (setup). */
  payment_status: 'unpaid' | 'processing' | 'paid' | 'no_payment_required';
  mode: 'subscription' | 'payment' | 'setup';
  is_test: boolean;
  /** `es-CO` by default; `en` when the session was created with locale `en`. */
  locale: 'es-CO' | 'en';
  merchant: { name: string };
  description: string | null;
  currency: string;
  /** Items priced in `currency` (quantities, unit prices, subtotals); the ntp item has `amount`. */
  items: Item[];
  /** Discounts applied (from the session and from a code the customer typed), with what each took off. */
  discounts: Array<Discount & { amount_off: string; /** Typed by the customer on the page: they may remove it. */ removable: boolean }>;
  /** Taxes shown per item where the product declares them (`invoice_settings.invoice_tax_percentage`), informative: prices include them. */
  taxes: Array<{ item: string; name: string; percentage: string; amount: string }>;
  /** Shipping charge when `shipping_cost` applies, else null. */
  shipping_amount: string | null;
  subtotal: string;
  total: string;
  /** Subscription terms (mode `subscription`), null otherwise. */
  terms: {
    billing_period: 'day' | 'week' | 'month' | 'year';
    billing_interval: number;
    trial_days: number | null;
    duration: number | null;
    commitment_periods: number | null;
    /** What the first collection will charge (0 items of a trial cost nothing) and what each renewal will. */
    first_total: string;
    recurring_total: string;
  } | null;
  /** The ntp price the customer chooses an amount for, if any (limits in `currency`). */
  choose_amount: { item: string; min_amount: string | null; max_amount: string | null; suggested_amount: string | null } | null;
  /** Methods the customer may use: the session's `payment_methods` ∩ the account's configured gateways (all configured ones when the session names none). */
  payment_methods: Record<string, string[]>;
  cta_text: string;
  /**
   * The identified customer (null until identified; a session created with `customer` starts identified).
   * `saved_payment_methods`: their active saved methods that this session accepts (its gateway and type allowed), newest first.
   */
  customer: { id: string; email: string; name: string | null; saved_payment_methods: Array<{ id: string; gateway: string; type: string; brand: string | null; last4: string | null }> } | null;
  /** Identification progress when `customer` is null: `email` ask for an e-mail; `code` a code was sent to `email_hint`; `new_customer` ask name/document to create one. */
  identification: { step: 'email' | 'code' | 'new_customer' | 'done'; email_hint: string | null; attempts_left: number | null };
  consent: { acceptance_required: boolean; terms_of_service: boolean; privacy_policy: boolean; accepted: boolean };
  custom_fields: CustomFieldView[];
  shipping: { required: boolean; countries: string[] | null; address: (BillingAddress & { name: string | null }) | null };
  /** The latest payment attempt of this session, for the outcome area of the page. */
  last_payment: {
    status: 'paid' | 'declined' | 'processing';
    message: string | null;
    failure_code: string | null;
    decline_code: string | null;
    /** Async methods: redirect address (pse bank page) or voucher data (efecty/cash reference, amount, expiry). */
    additional_data: Record<string, unknown> | null;
  } | null;
  /** Whether `pay` may be called now (open, before `expires_at`, no attempt under way; after a decline too). */
  can_pay: boolean;
  after_completion: { type: 'hosted' | 'redirect'; redirect_url_approved: string | null; redirect_url_processing: string | null };
  subscription: string | null;
  collection: string | null;
  /** The subscription's next charge (its `next_renewal_date`) once it exists; null otherwise. */
  next_charge_date: string | null;
  expires_at: string;
}

/** What the customer submits with the payment (details may also be saved earlier with `saveDetails`). */
export interface CheckoutDetailsInput {
  consent?: { terms_of_service?: boolean; privacy_policy?: boolean };
  /** key → value; `options` fields must name one of their options. */
  custom_fields?: Record<string, string>;
  shipping_address?: Omit<BillingAddress, 'address_2' | 'postcode'> & { address_2?: string | null; postcode?: string | null; name?: string | null };
  /** The amount chosen for the ntp item (within its limits). */
  ntp_amount?: string;
}

export interface PayInput extends CheckoutDetailsInput {
  /** One-off data: a card typed on the page (tokenized by the gateway, never stored), or an async method (`pse` with `bank_code`, `efecty`, `cash`…). */
  payment_information?: PaymentInformation;
  /** Or a saved method of the identified customer (`pm_…`). */
  payment_method?: string;
}

/** The result of `pay`. */
export type PayOutcome =
  /** Paid (or, in setup mode, the method saved). Go to `redirect_url` when set, else show the thank-you page. */
  | { status: 'complete'; session: HostedSessionView; redirect_url: string | null }
  /** Declined: show `message` (readable, e.g. "The card has insufficient funds.") and the form again when `retry_allowed`. */
  | { status: 'declined'; session: HostedSessionView; message: string; failure_code: string; decline_code: string | null; retry_allowed: boolean }
  /** Awaiting the customer's action (pse redirect, cash voucher): show `additional_data`, or go to `redirect_url` (redirect_url_processing) when set. */
  | { status: 'processing'; session: HostedSessionView; additional_data: Record<string, unknown>; redirect_url: string | null };

/** A new checkout session opened from a payment link or a storefront pick: redirect the customer to `url`. */
export interface OpenedSession {
  session: string;
  url: string;
  token: string;
}

/** A payment link's landing (`{checkout_url}/pl/<id>`): what it sells, or why it cannot be used. Read from the link alone (nothing written). */
export interface PaymentLinkView {
  id: string;
  merchant: { name: string };
  active: boolean;
  /** Why it cannot be used: `inactive` (deactivated) or `used_up` (usage_limit reached); null when usable. */
  closed_reason: 'inactive' | 'used_up' | null;
  cta_text: string;
  /** `amount`: unit price × quantity in `currency` (null for an ntp price, whose amount the customer chooses); `billing_period`/`billing_interval` for a recurring price. */
  items: Array<{ name: string; price: string; quantity: number; unit_price: string | null; amount: string | null; currency: string; billing_period: string | null; billing_interval: number | null }>;
  choose_amount: { min_amount: string | null; max_amount: string | null; suggested_amount: string | null; currency: string } | null;
  is_test: boolean;
}

/** A storefront's public page (`{checkout_url}/sf/<id>`). */
export interface StorefrontView {
  id: string;
  name: string;
  merchant: { name: string };
  active: boolean;
  cta_text: string;
  products: Array<{ id: string; name: string; description: string | null; image: string | null; prices: Array<{ id: string; unit_price: string | null; currency: string; type: string; billing_period: string | null; billing_interval: number | null; pricing_model: string }> }>;
  is_test: boolean;
}

/**
 * The hosted pages' application service (implemented in hosted-checkout.service.ts, exported by
 * CheckoutModule under this class as the Nest token).
 */
export abstract class HostedCheckout {
  /**
   * Verifies the token (HMAC, expiry, that it names an existing session) → the session as the page
   * shows it. The page compares `view.id` with the `cs_` id of its path (another session's token is
   * refused as foreign); a session past `expires_at` answers `checkout_token_expired` unless the
   * customer paid or tried to pay it (its outcome stays readable).
   */
  abstract open(token: string): Promise<HostedSessionView>;

  /**
   * Step 1 of identification (sessions without `customer`): an existing customer of the account and
   * mode with this e-mail gets a one-time 6-digit code by e-mail (MAIL port, kind `checkout.email_code`;
   * stored hashed, valid 10 minutes, 5 attempts) → step `code`; an unknown e-mail → step `new_customer`.
   */
  abstract requestEmailCode(token: string, email: string, req: PageRequest): Promise<HostedSessionView>;

  /** Step 2: the code from the e-mail → the customer is identified on the session (step `done`). */
  abstract verifyEmailCode(token: string, code: string, req: PageRequest): Promise<HostedSessionView>;

  /** Creates a new customer for an e-mail that has none (step `new_customer`) and identifies it. */
  abstract createCustomer(
    token: string,
    input: { email: string; name: string; phone?: string | null; document_type?: string | null; document_number?: string | null },
    req: PageRequest,
  ): Promise<HostedSessionView>;

  /** Applies a coupon code typed by the customer (checked now, redeemed at payment). */
  abstract applyCoupon(token: string, code: string, req: PageRequest): Promise<HostedSessionView>;

  /** Removes a code the customer applied. */
  abstract removeCoupon(token: string, code: string, req: PageRequest): Promise<HostedSessionView>;

  /** Saves consent (with `req.ip_address`/`user_agent`), custom field values, shipping address and the ntp amount. */
  abstract saveDetails(token: string, input: CheckoutDetailsInput, req: PageRequest): Promise<HostedSessionView>;

  /**
   * Pays (or, in setup mode, saves the method): checks everything required (customer identified,
   * consent, required custom fields, shipping address in an allowed country, the method allowed),
   * then creates the subscription or the collection and attempts it; the session completes
   * (`checkout_session.completed`) when the payment is approved and stays open otherwise. Two tabs
   * at once: one charge; the other gets `payment_in_progress` or the outcome already reached. After
   * a decline the same call pays the session's collection again.
   */
  abstract pay(token: string, input: PayInput, req: PageRequest): Promise<PayOutcome>;

  /** Where to send the customer after completion: `redirect_url_approved` / `_processing`, or null for the hosted thank-you page. */
  abstract completion(token: string): Promise<{ session: HostedSessionView; redirect_url: string | null }>;

  /** A payment link's landing: usable or closed (and why). Writes nothing. 404 `resource_missing` for an unknown link. */
  abstract paymentLink(linkId: string): Promise<PaymentLinkView>;

  /** The visitor starts paying through a payment link: a new checkout session (refused when inactive or used up). */
  abstract openPaymentLink(linkId: string, req: PageRequest): Promise<OpenedSession>;

  /** A storefront's public page. 404 `resource_missing` for an unknown one. */
  abstract storefront(storefrontId: string): Promise<StorefrontView>;

  /** The customer picked a price of the storefront: a new checkout session for it. */
  abstract openStorefrontChoice(storefrontId: string, choice: { price: string; quantity?: number }, req: PageRequest): Promise<OpenedSession>;
}
