import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { checkMetaData } from '#shared/meta-data.js';
import { Money, currency as currencyOf, decimalPlaces, formatAmount, isDecimalString, type Currency } from '#shared/money.js';
import { checkNtpAmount, type LineInput } from '#collections/domain/pricing.js';
import { checkDiscounts, normalizeDiscount, priceCollection } from '#collections/domain/collection.decider.js';
import { COUNTRY_CODES } from '#customers/domain/customer.decider.js';
import { gatewayNotConfiguredMessage, gatewayOffers, isGatewayId, isTokenizable } from '#payments/domain/gateways.js';
import { MESSAGES } from '#subscriptions/domain/subscription.decider.js';
import {
  type CheckoutSessionCommand,
  type CheckoutSessionEvent,
  type CheckoutSessionFields,
  type CheckoutSessionState,
  type CreateCheckoutSessionInput,
  type CustomField,
  type SessionDiscount,
  CTA_TEXTS,
  DEFAULT_EXPIRY_MS,
  MAX_EXPIRY_MS,
  MIN_EXPIRY_MS,
} from './checkout-session.types.js';

const isInt = (v: unknown, min: number, max: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
function checkInt(param: string, v: unknown, min: number, max: number) {
  if (v === undefined || v === null) return;
  if (!isInt(v, min, max)) throw invalidParam(param, `${param} must be an integer from ${min} to ${max}`);
}
function checkString(param: string, v: unknown, max: number) {
  if (v === undefined || v === null) return;
  if (typeof v !== 'string' || v.length > max) throw invalidParam(param, `${param} must be a string of at most ${max} characters`);
}
function checkBool(param: string, v: unknown) {
  if (v !== undefined && typeof v !== 'boolean') throw invalidParam(param, `${param} must be a boolean`);
}
function checkUrl(param: string, v: unknown) {
  if (v === undefined || v === null) return;
  let ok = false;
  try {
    ok = typeof v === 'string' && v.length <= 2000 && ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw invalidParam(param, `${param} must be an http or https URL`);
}
function onlyKeys(param: string, value: unknown, keys: string[]) {
  if (value === undefined || value === null) return;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParam(param, `${param} must be an object`);
  for (const k of Object.keys(value)) if (!keys.includes(k)) throw new DomainError('parameter_unknown', `Received unknown parameter: ${param}[${k}]`, `${param}[${k}]`, 400);
}

/**
 * When the session expires: `expires_at` if given (30 minutes to 24 hours from now, Stripe's range),
 * else 24 hours from now. Pure: the handler calls it to sign the URL before deciding.
 */
export function resolveExpiresAt(expiresAt: string | undefined | null, now: Date): string {
  if (expiresAt === undefined || expiresAt === null) return new Date(now.getTime() + DEFAULT_EXPIRY_MS).toISOString();
  const at = typeof expiresAt === 'string' ? new Date(expiresAt) : new Date(NaN);
  if (Number.isNaN(at.getTime())) throw invalidParam('expires_at', 'expires_at must be an ISO 8601 timestamp');
  const delta = at.getTime() - now.getTime();
  if (delta < MIN_EXPIRY_MS || delta > MAX_EXPIRY_MS) throw invalidParam('expires_at', 'expires_at must be between 30 minutes and 24 hours from now');
  return at.toISOString();
}

/** The shipping charge as a line (a one-time, standard "price" of its own), as subscriptions bill theirs. */
export function shippingLine(amount: string, currency: string): LineInput {
  return {
    id: 'si_shipping',
    quantity: 1,
    rate: null,
    product: { id: 'shipping', object: 'shipping', name: 'Envío' },
    price: { id: 'shipping', object: 'shipping', product_id: 'shipping', type: 'one_time', pricing_model: 'standard', currency, unit_price: amount, billing_period: null, billing_interval: null, pricing_tiers: null, ntp_pricing: null, active: true, meta_data: {} } as never,
  };
}

/**
 * What the customer pays now: items priced in the session's currency (recurring items at 0 during a
 * trial), the shipping line, discounts applied in order. Setup sessions cost nothing.
 */
export function priceSession(f: Pick<CheckoutSessionFields, 'mode' | 'currency' | 'subscription_settings' | 'shipping_cost' | 'shipping_amount'>, lines: LineInput[], discounts: SessionDiscount[]) {
  const cur = currencyOf(f.currency)!;
  if (f.mode === 'setup') return { items: [], subtotal: formatAmount('0', cur), total: formatAmount('0', cur), discount_amounts: {} as Record<string, string> };
  const trial = f.mode === 'subscription' && Boolean(f.subscription_settings?.trial_days);
  const priced: LineInput[] = lines.map((l) => ({ ...l, free: trial && l.price.type === 'recurring' }));
  if (f.shipping_cost && f.shipping_amount) priced.push(shippingLine(f.shipping_amount, cur.code));
  const p = priceCollection(priced, discounts.map(({ id, code, amount, percent }) => ({ id, code, amount, percent })), cur);
  return { items: p.items, subtotal: p.subtotal, total: p.total, discount_amounts: p.discount_amounts };
}

/** Recurring-price rules shared by sessions, payment links and storefronts: one frequency; at most one ntp price, and no trial with it. */
export function checkPriceMix(lines: LineInput[], trialDays: number | null | undefined, param = 'items'): void {
  const recurring = lines.filter((l) => l.price.type === 'recurring');
  const first = recurring[0]?.price;
  if (first && recurring.some((l) => l.price.billing_period !== first.billing_period || l.price.billing_interval !== first.billing_interval)) {
    throw invalidParam(param, MESSAGES.sameFrequency);
  }
  const ntp = lines.filter((l) => l.price.pricing_model === 'ntp');
  if (ntp.length > 1) throw invalidParam(param, 'Only one price with pricing_model ntp is allowed');
  if (ntp.length === 1 && trialDays) throw invalidParam('subscription_settings[trial_days]', 'A price with pricing_model ntp cannot have a free trial');
}

/** `payment_methods`: known gateways offering the named methods, each configured on the account (the spec's message). */
export function checkPaymentMethods(value: unknown, configured: string[], tokenizableOnly: boolean, param = 'payment_methods'): Record<string, string[]> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParam(param, `${param} must be an object of gateway identifiers to arrays of method names`);
  const out: Record<string, string[]> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw invalidParam(param, `${param} must name at least one gateway`);
  for (const [gateway, methods] of entries) {
    const p = `${param}[${gateway}]`;
    // A name that is no gateway at all (`stripe`) is, like a known one left unconfigured, not configured in the account (the spec's rejection).
    if (!isGatewayId(gateway)) throw new DomainError('gateway_not_configured', gatewayNotConfiguredMessage(gateway), p, 400);
    if (!Array.isArray(methods) || methods.length === 0) throw invalidParam(p, `${p} must be a non-empty array of method names`);
    for (const [i, m] of methods.entries()) {
      if (typeof m !== 'string' || !gatewayOffers(gateway, m)) throw invalidParam(`${p}[${i}]`, `${gateway} does not offer ${String(m)}`);
      if (tokenizableOnly && !isTokenizable(m)) throw invalidParam(`${p}[${i}]`, `mode setup saves a card or wallet; ${m} cannot be saved`);
    }
    if (!configured.includes(gateway)) throw new DomainError('gateway_not_configured', gatewayNotConfiguredMessage(gateway), p, 400);
    out[gateway] = [...new Set(methods as string[])];
  }
  return out;
}

function checkCustomFields(value: CreateCheckoutSessionInput['custom_fields']): CustomField[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParam('custom_fields', 'custom_fields must be an array');
  if (value.length > 5) throw invalidParam('custom_fields', 'custom_fields can have at most 5 fields');
  const keys = new Set<string>();
  return value.map((f, i) => {
    const p = `custom_fields[${i}]`;
    onlyKeys(p, f, ['key', 'type', 'label', 'options', 'required']);
    if (typeof f.key !== 'string' || !/^[A-Za-z0-9_]{1,40}$/.test(f.key)) throw invalidParam(`${p}[key]`, `${p}[key] must be 1 to 40 letters, digits or _`);
    if (keys.has(f.key)) throw invalidParam(`${p}[key]`, `custom field key ${f.key} is repeated`);
    keys.add(f.key);
    const type = f.type ?? 'text';
    if (type !== 'text' && type !== 'options') throw invalidParam(`${p}[type]`, `${p}[type] must be text or options`);
    if (typeof f.label !== 'string' || f.label.trim().length === 0 || f.label.length > 100) throw invalidParam(`${p}[label]`, `${p}[label] must be 1 to 100 characters long`);
    checkBool(`${p}[required]`, f.required);
    let options: string[] = [];
    if (type === 'options') {
      if (!Array.isArray(f.options) || f.options.length === 0 || f.options.length > 20 || f.options.some((o) => typeof o !== 'string' || o.length === 0 || o.length > 100)) {
        throw invalidParam(`${p}[options]`, `${p}[options] must be 1 to 20 non-empty strings`);
      }
      options = [...f.options];
    } else if (f.options !== undefined && f.options !== null && (!Array.isArray(f.options) || f.options.length > 0)) {
      throw invalidParam(`${p}[options]`, `${p}[options] is only allowed with type options`);
    }
    return { key: f.key, type, label: f.label, options, required: f.required ?? false, value: null };
  });
}

function checkAmount(param: string, v: unknown, cur: Currency): string {
  if (!isDecimalString(v) || new Money(v).lt(0)) throw invalidParam(param, `${param} must be a decimal amount written as a string, such as "10000.00"`);
  if (decimalPlaces(v) > cur.exponent) throw invalidParam(param, `${param} has more decimals than ${cur.code} allows (${cur.exponent})`);
  return formatAmount(v, cur);
}

/** Every rule of `POST /v1/checkout_session`; the session as created. */
export function decideCreate(c: Extract<CheckoutSessionCommand, { type: 'CreateCheckoutSession' }>, state: CheckoutSessionState): CheckoutSessionEvent[] {
  if (state.exists) throw new DomainError('resource_already_exists', `Checkout session ${c.sessionId} already exists`, null, 409);
  const i = c.input;
  if (!['subscription', 'payment', 'setup'].includes(i.mode)) {
    throw i.mode === undefined ? missingParam('mode') : invalidParam('mode', 'mode must be subscription, payment or setup');
  }
  const mode = i.mode;
  // Items: required to sell, refused when saving a method.
  const lines = i.lines;
  if (mode === 'setup') {
    if (lines.length > 0) throw invalidParam('items', 'mode setup saves a payment method and takes no items');
  } else {
    if (lines.length === 0) throw missingParam('items', 'items must have at least one item');
    if (lines.length > 20) throw invalidParam('items', 'items can have at most 20 items');
  }
  lines.forEach((l, n) => {
    if (!l.price.active) throw invalidParam(`items[${n}][price]`, `Price ${l.price.id} is not active`);
    checkInt(`items[${n}][quantity]`, l.quantity, 1, 1_000_000);
    // An ntp amount may be left to the customer (chosen on the page, required before paying).
    if (l.amount !== undefined && l.amount !== null) checkNtpAmount(l.price, l.amount, `items[${n}][amount]`);
  });
  const recurring = lines.filter((l) => l.price.type === 'recurring');
  if (mode === 'subscription' && recurring.length === 0) throw invalidParam('items', 'mode subscription needs at least one recurring price');
  if (mode === 'payment' && recurring.length > 0) {
    throw invalidParam(`items[${lines.indexOf(recurring[0])}][price]`, `Price ${recurring[0].price.id} is recurring; mode payment takes one_time prices (use mode subscription)`);
  }
  // Currency: the request's, else the first recurring (or first) price's; setup: the request's or COP.
  const currencyCode = (i.currency ?? recurring[0]?.price.currency ?? lines[0]?.price.currency ?? 'COP').toString();
  const cur = currencyOf(currencyCode);
  if (!cur) throw invalidParam('currency', `currency must be an ISO 4217 currency code (got ${i.currency})`);

  // Subscription settings: only where a subscription is made.
  let settings: CheckoutSessionFields['subscription_settings'] = null;
  if (i.subscription_settings !== undefined && i.subscription_settings !== null) {
    if (mode !== 'subscription') throw invalidParam('subscription_settings', 'subscription_settings is only allowed with mode subscription');
    const s = i.subscription_settings;
    onlyKeys('subscription_settings', s, ['duration', 'commitment_periods', 'trial_days']);
    checkInt('subscription_settings[duration]', s.duration, 1, 1000);
    checkInt('subscription_settings[commitment_periods]', s.commitment_periods, 1, 1000);
    checkInt('subscription_settings[trial_days]', s.trial_days, 1, 730);
    if (s.duration && s.commitment_periods && s.commitment_periods > s.duration) throw invalidParam('subscription_settings[commitment_periods]', 'commitment_periods cannot exceed duration');
    settings = { duration: s.duration ?? null, commitment_periods: s.commitment_periods ?? null, trial_days: s.trial_days ?? null };
  }
  checkPriceMix(lines, settings?.trial_days);

  // Setup of an existing subscription.
  let customer = i.customer ?? null;
  if (customer !== null && (!c.facts.customer || c.facts.customer.id !== customer)) throw notFound('customer', customer, 'customer');
  let setupSubscription: string | null = null;
  if (i.setup_subscription_id !== undefined && i.setup_subscription_id !== null) {
    if (mode !== 'setup') throw invalidParam('setup_subscription_id', 'setup_subscription_id is only allowed with mode setup');
    const sub = c.facts.setupSubscription;
    if (!sub || sub.id !== i.setup_subscription_id) throw notFound('subscription', i.setup_subscription_id, 'setup_subscription_id');
    if (['canceled', 'ended', 'expired'].includes(sub.status)) throw invalidParam('setup_subscription_id', `Subscription ${sub.id} is ${sub.status}; its payment method can no longer be replaced`);
    if (customer !== null && customer !== sub.customer) throw invalidParam('customer', `Subscription ${sub.id} belongs to another customer`);
    customer = sub.customer;
    setupSubscription = sub.id;
  }

  const paymentMethods = checkPaymentMethods(i.payment_methods, c.facts.configuredGateways, mode === 'setup');

  // Discounts: coupons resolved by the handler (or ad-hoc amounts), in the session's currency.
  if (mode === 'setup' && i.discounts.length > 0) throw invalidParam('discounts', 'mode setup takes no discounts');
  const base = i.discounts.map((d, n) => ({ id: `sd_${c.sessionId.slice(3)}_${n}`, code: d.code, amount: d.amount, percent: d.percent }));
  checkDiscounts(base, cur);
  const discounts: SessionDiscount[] = i.discounts.map((d, n) => {
    checkInt(`discounts[${n}][duration_in_collections]`, d.duration_in_collections, 1, 1000);
    return { ...normalizeDiscount(base[n], cur), duration_in_collections: d.duration_in_collections, coupon: d.coupon, applied_by: 'merchant' };
  });

  // After completion.
  const ac = i.after_completion ?? {};
  onlyKeys('after_completion', i.after_completion, ['type', 'redirect_url_approved', 'redirect_url_processing']);
  const acType = ac.type ?? 'hosted';
  if (acType !== 'hosted' && acType !== 'redirect') throw invalidParam('after_completion[type]', 'after_completion[type] must be hosted or redirect');
  checkUrl('after_completion[redirect_url_approved]', ac.redirect_url_approved);
  checkUrl('after_completion[redirect_url_processing]', ac.redirect_url_processing);
  if (acType === 'redirect' && !ac.redirect_url_approved) throw missingParam('after_completion[redirect_url_approved]', 'after_completion[redirect_url_approved] is required with type redirect');

  // Shipping.
  checkBool('shipping_address_collection', i.shipping_address_collection);
  checkBool('shipping_cost', i.shipping_cost);
  let countries: string[] | null = null;
  if (i.shipping_address_countries !== undefined && i.shipping_address_countries !== null) {
    if (!i.shipping_address_collection) throw invalidParam('shipping_address_countries', 'shipping_address_countries needs shipping_address_collection: true');
    if (!Array.isArray(i.shipping_address_countries) || i.shipping_address_countries.length === 0) throw invalidParam('shipping_address_countries', 'shipping_address_countries must be a non-empty array of ISO 3166-1 alpha-2 codes');
    countries = i.shipping_address_countries.map((code, n) => {
      const up = typeof code === 'string' ? code.toUpperCase() : '';
      if (!COUNTRY_CODES.has(up)) throw invalidParam(`shipping_address_countries[${n}]`, `${String(code)} is not an ISO 3166-1 alpha-2 country code`);
      return up;
    });
  }
  let shippingAmount: string | null = null;
  if (i.shipping_cost) {
    if (!i.shipping_address_collection) throw invalidParam('shipping_cost', 'shipping_cost needs shipping_address_collection: true');
    if (mode === 'setup') throw invalidParam('shipping_cost', 'shipping_cost is for mode payment or subscription (mode setup charges nothing)');
    if (i.shipping_amount === undefined || i.shipping_amount === null) throw missingParam('shipping_amount', 'shipping_amount is required with shipping_cost: true');
    shippingAmount = checkAmount('shipping_amount', i.shipping_amount, cur);
  } else if (i.shipping_amount !== undefined && i.shipping_amount !== null) {
    throw invalidParam('shipping_amount', 'shipping_amount needs shipping_cost: true');
  }

  // Page settings.
  const cta = i.cta_text ?? (mode === 'subscription' ? 'Suscribirse' : 'Pagar');
  if (!(CTA_TEXTS as readonly string[]).includes(cta)) throw invalidParam('cta_text', `cta_text must be one of ${CTA_TEXTS.join(', ')}`);
  const locale = i.locale ?? 'es-CO';
  if (locale !== 'es-CO' && locale !== 'en') throw invalidParam('locale', 'locale must be es-CO or en');
  checkString('description', i.description, 500);
  checkString('internal_reference_id', i.internal_reference_id, 200);
  const meta = checkMetaData(i.meta_data) ?? {};
  onlyKeys('consent', i.consent, ['acceptance_required', 'terms_of_service', 'privacy_policy']);
  checkBool('consent[acceptance_required]', i.consent?.acceptance_required);
  checkBool('consent[terms_of_service]', i.consent?.terms_of_service);
  checkBool('consent[privacy_policy]', i.consent?.privacy_policy);
  const customFields = checkCustomFields(i.custom_fields);
  let invoicing: CheckoutSessionFields['invoicing'] = null;
  if (i.invoicing !== undefined && i.invoicing !== null) {
    onlyKeys('invoicing', i.invoicing, ['enabled', 'invoice_settings']);
    checkBool('invoicing[enabled]', i.invoicing.enabled);
    const keys = ['invoice_document_id', 'invoice_payment_method_credit', 'invoice_vendor', 'invoice_autoretention_tax_id', 'invoice_cost_center'] as const;
    onlyKeys('invoicing[invoice_settings]', i.invoicing.invoice_settings, [...keys]);
    for (const k of keys) checkString(`invoicing[invoice_settings][${k}]`, i.invoicing.invoice_settings?.[k], 100);
    invoicing = {
      enabled: i.invoicing.enabled ?? false,
      invoice_settings: Object.fromEntries(keys.map((k) => [k, i.invoicing!.invoice_settings?.[k] ?? null])) as never,
    };
  }
  if (c.expiresAt !== resolveExpiresAt(i.expires_at, c.now)) throw invalidParam('expires_at', 'expires_at changed while the session was created');

  const now = c.now.toISOString();
  const partial = { mode, currency: cur.code, subscription_settings: settings, shipping_cost: i.shipping_cost ?? false, shipping_amount: shippingAmount };
  const priced = priceSession(partial, lines, discounts);
  const fields: CheckoutSessionFields = {
    mode,
    currency: cur.code,
    customer,
    after_completion: { type: acType, redirect_url_approved: ac.redirect_url_approved ?? null, redirect_url_processing: ac.redirect_url_processing ?? null },
    items: priced.items,
    subtotal: priced.subtotal,
    total: priced.total,
    meta_data: meta,
    status: 'open',
    internal_reference_id: i.internal_reference_id ?? null,
    payment_status: mode === 'setup' ? 'no_payment_required' : 'unpaid',
    expires_at: c.expiresAt,
    created_date: now,
    updated_date: now,
    discounts,
    subscription_settings: settings,
    shipping_address_collection: i.shipping_address_collection ?? false,
    shipping_address_countries: countries,
    shipping_cost: i.shipping_cost ?? false,
    shipping_amount: shippingAmount,
    shipping_address: null,
    cta_text: cta as CheckoutSessionFields['cta_text'],
    payment_methods: paymentMethods,
    is_test: c.owner.mode === 'test',
    url: c.url,
    subscription: null,
    collection: null,
    payment_method: null,
    invoicing,
    setup_subscription_id: setupSubscription,
    description: i.description ?? null,
    consent: {
      acceptance_required: i.consent?.acceptance_required ?? false,
      terms_of_service: i.consent?.terms_of_service ?? false,
      privacy_policy: i.consent?.privacy_policy ?? false,
      ip_address: null,
      user_agent: null,
      accepted_at: null,
    },
    custom_fields: customFields,
    locale,
    payment_link: i.payment_link ?? null,
    storefront: i.storefront ?? null,
    completed_at: null,
    expired_at: null,
    last_payment: null,
    test_clock: c.facts.customer?.test_clock ?? null,
  };
  return [{ type: 'checkout_session.created', data: { ...fields, id: c.sessionId, account_id: c.owner.accountId, created_at: now, _lines: lines } }];
}
