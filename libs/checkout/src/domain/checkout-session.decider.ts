import { Decider } from '#shared/decider.js';
import { DomainError, invalidParam, missingParam, notFound } from '#shared/errors.js';
import { currency as currencyOf, decimalPlaces, formatAmount } from '#shared/money.js';
import { ownedBy } from '#shared/owner.js';
import { checkNtpAmount } from '#collections/domain/pricing.js';
import { COUNTRY_CODES } from '#customers/domain/customer.decider.js';
import { scrubbedSession } from '#customers/personal-data/read-model-scrub.js';
import { gatewayOffers, isGatewayId, isTokenizable } from '#payments/domain/gateways.js';
import { decideCreate, priceSession } from './create-checkout-session.js';
import {
  type CheckoutSessionCommand,
  type CheckoutSessionEvent,
  type CheckoutSessionFields,
  type CheckoutSessionState,
  type DetailsInput,
  type AttemptPlan,
  type LastPayment,
  type SessionAttempt,
  type SessionDiscount,
  EMAIL_CODE_MAX_ATTEMPTS,
  EMAIL_CODE_TTL_MS,
  EMAIL_CODES_PER_SESSION,
  STALE_PAYMENT_MS,
} from './checkout-session.types.js';

export * from './checkout-session.types.js';
export { priceSession, resolveExpiresAt, checkPriceMix, checkPaymentMethods, shippingLine } from './create-checkout-session.js';

const refuse = (code: string, message: string, param: string | null = null, status = 409) => new DomainError(code, message, param, status);

/** Whether the session's deadline has passed at `now` (an open session past it can no longer be used). */
const pastExpiry = (f: CheckoutSessionFields, now: Date) => now.getTime() >= Date.parse(f.expires_at);

function requireOpen(f: CheckoutSessionFields, id: string, now: Date) {
  if (f.status === 'expired' || (f.status === 'open' && pastExpiry(f, now))) throw refuse('checkout_session_expired', `Checkout session ${id} has expired`);
  if (f.status === 'complete') throw refuse('checkout_session_complete', `Checkout session ${id} is already complete`);
}

/** The details the customer submitted, checked against the session: the changes they make. */
function applyDetails(f: CheckoutSessionFields, state: CheckoutSessionState, d: DetailsInput, now: Date): { changes: Partial<CheckoutSessionFields>; lines?: CheckoutSessionState['lines'] } {
  const changes: Partial<CheckoutSessionFields> = {};
  let lines: CheckoutSessionState['lines'] | undefined;
  if (d.consent !== undefined) {
    const accepted = Boolean(d.consent.terms_of_service || d.consent.privacy_policy);
    if (accepted) {
      if (f.consent.terms_of_service && !d.consent.terms_of_service) throw refuse('consent_required', 'The terms of service must be accepted', 'consent[terms_of_service]', 400);
      if (f.consent.privacy_policy && !d.consent.privacy_policy) throw refuse('consent_required', 'The privacy policy must be accepted', 'consent[privacy_policy]', 400);
      changes.consent = { ...f.consent, ip_address: d.ip_address, user_agent: d.user_agent, accepted_at: now.toISOString() };
    }
  }
  if (d.custom_fields !== undefined) {
    if (typeof d.custom_fields !== 'object' || d.custom_fields === null) throw invalidParam('custom_fields', 'custom_fields must be an object of key to value');
    for (const key of Object.keys(d.custom_fields)) if (!f.custom_fields.some((c) => c.key === key)) throw invalidParam(`custom_fields[${key}]`, `No custom field ${key} on this checkout`);
    changes.custom_fields = f.custom_fields.map((c) => {
      if (!(c.key in d.custom_fields!)) return c;
      const raw = d.custom_fields![c.key];
      const value = typeof raw === 'string' ? raw.trim() : '';
      if (typeof raw !== 'string' || value.length > 255) throw invalidParam(`custom_fields[${c.key}]`, `${c.label} must be text of at most 255 characters`);
      if (c.type === 'options' && value !== '' && !c.options.includes(value)) throw invalidParam(`custom_fields[${c.key}]`, `${c.label} must be one of: ${c.options.join(', ')}`);
      return { ...c, value: value === '' ? null : value };
    });
  }
  if (d.shipping_address !== undefined) {
    if (!f.shipping_address_collection) throw invalidParam('shipping_address', 'This checkout does not collect a shipping address');
    const a = d.shipping_address ?? {};
    for (const k of ['address_1', 'city', 'state', 'country'] as const) {
      if (typeof a[k] !== 'string' || a[k]!.trim() === '' || a[k]!.length > 200) throw missingParam(`shipping_address[${k}]`, `shipping_address[${k}] is required`);
    }
    const country = a.country!.toUpperCase();
    if (!COUNTRY_CODES.has(country)) throw invalidParam('shipping_address[country]', `${a.country} is not an ISO 3166-1 alpha-2 country code`);
    if (f.shipping_address_countries && !f.shipping_address_countries.includes(country)) {
      throw refuse('shipping_country_not_allowed', `This checkout ships only to ${f.shipping_address_countries.join(', ')}`, 'shipping_address[country]', 400);
    }
    changes.shipping_address = {
      name: a.name ?? null,
      address_1: a.address_1!.trim(),
      address_2: a.address_2 ?? null,
      city: a.city!.trim(),
      state: a.state!.trim(),
      postcode: a.postcode ?? null,
      country,
    };
  }
  if (d.ntp_amount !== undefined) {
    const idx = state.lines.findIndex((l) => l.price.pricing_model === 'ntp');
    if (idx === -1) throw invalidParam('ntp_amount', 'This checkout has no price whose amount the customer chooses');
    const line = state.lines[idx];
    checkNtpAmount(line.price, d.ntp_amount, 'ntp_amount');
    const cur = currencyOf(line.price.currency)!;
    if (decimalPlaces(d.ntp_amount) > cur.exponent) throw invalidParam('ntp_amount', `ntp_amount has more decimals than ${cur.code} allows (${cur.exponent})`);
    lines = state.lines.map((l, n) => (n === idx ? { ...l, amount: formatAmount(d.ntp_amount!, cur) } : l));
    Object.assign(changes, repriced(f, lines, f.discounts));
  }
  return { changes, lines };
}

function repriced(f: CheckoutSessionFields, lines: CheckoutSessionState['lines'], discounts: SessionDiscount[]): Partial<CheckoutSessionFields> {
  const p = priceSession(f, lines, discounts);
  return { items: p.items, subtotal: p.subtotal, total: p.total, discounts };
}

/** What must be there before paying: the customer, consent, required custom fields, the shipping address, an allowed method. */
function checkReady(f: CheckoutSessionFields, method: { gateway: string; type: string }, lines: CheckoutSessionState['lines']): void {
  if (!f.customer) throw refuse('customer_required', 'Identify the customer (e-mail) before paying', 'email', 400);
  if (f.consent.acceptance_required && !f.consent.accepted_at) throw refuse('consent_required', 'The terms must be accepted before paying', 'consent', 400);
  for (const c of f.custom_fields) if (c.required && !c.value) throw refuse('custom_field_required', `${c.label} is required`, `custom_fields[${c.key}]`, 400);
  if (f.shipping_address_collection && !f.shipping_address) throw refuse('shipping_address_required', 'A shipping address is required', 'shipping_address', 400);
  for (const l of lines) if (l.price.pricing_model === 'ntp' && !(l.amount ?? l.price.ntp_pricing?.suggested_amount)) throw refuse('amount_required', 'Choose the amount to pay', 'ntp_amount', 400);
  if (!isGatewayId(method.gateway) || !gatewayOffers(method.gateway, method.type)) throw refuse('payment_method_not_allowed', `${method.gateway} does not offer ${method.type}`, 'payment_information', 400);
  if (f.payment_methods && !(f.payment_methods[method.gateway] ?? []).includes(method.type)) {
    throw refuse('payment_method_not_allowed', `This checkout does not accept ${method.type} through ${method.gateway}`, 'payment_information', 400);
  }
  if (f.mode === 'setup' && !isTokenizable(method.type)) throw refuse('payment_method_not_allowed', `A ${method.type} payment cannot be saved; use a card or a wallet`, 'payment_information', 400);
  // A subscription renews by itself only on a method that can be tokenized; others only when the session names them.
  if (f.mode === 'subscription' && !f.payment_methods && !isTokenizable(method.type)) {
    throw refuse('payment_method_not_allowed', `A ${method.type} payment cannot renew the subscription by itself; use a card or a wallet`, 'payment_information', 400);
  }
  if (f.mode === 'subscription' && !isTokenizable(method.type) && method.gateway !== 'offline' && f.subscription_settings?.trial_days) {
    throw refuse('payment_method_not_allowed', 'A free trial needs a card or a wallet to charge when it ends', 'payment_information', 400);
  }
}

const inProgress = (at: Date): LastPayment => ({ status: 'in_progress', started_at: at.toISOString(), message: null, failure_code: null, decline_code: null, additional_data: null });

/** An attempt started less than STALE_PAYMENT_MS ago and not answered yet (an older one's process stopped). */
const attemptInFlight = (f: CheckoutSessionFields, now: Date) => f.last_payment?.status === 'in_progress' && now.getTime() - Date.parse(f.last_payment.started_at) < STALE_PAYMENT_MS;

/** Another attempt of an open session whose earlier one was declined (or abandoned): one attempt at a time. */
function startRetry(f: CheckoutSessionFields, state: CheckoutSessionState, id: string, method: { gateway: string; type: string }, attempt: AttemptPlan | null, now: Date): CheckoutSessionEvent {
  if (attemptUnanswered(state) || attemptInFlight(f, now) || f.payment_status === 'processing') throw refuse('payment_in_progress', 'A payment of this checkout is in progress');
  checkReady(f, method, state.lines);
  return { type: 'checkout_payment.retried', data: { id, last_payment: inProgress(now), ...(attempt ? { attempt } : {}) } };
}

/**
 * An attempt recorded before its gateway call whose answer is not recorded yet (whatever its age: a
 * process that stopped after the call may have been approved). It is resumed — the gateway asked
 * again with the same charge id — before anything else happens to the session.
 */
export const attemptUnanswered = (state: CheckoutSessionState) => state.attempt?.status === 'in_progress';

/** An attempt approved (or awaiting the customer's bank) whose subscription or collection is not made yet. */
export const attemptUnfinished = (state: CheckoutSessionState) => state.attempt !== null && (state.attempt.status === 'paid' || state.attempt.status === 'processing') && !state.attempt.finished;

/**
 * A session completed unpaid under the earlier rule (completion on submitting a payment): its
 * outcome is still recorded as it was then (`checkout_session.payment_updated`).
 */
function completeOutcome(f: CheckoutSessionFields, id: string, payment_status: CheckoutSessionFields['payment_status'], last: LastPayment, refs: { collection: string | null; subscription: string | null; payment_method: string | null }, at: string): CheckoutSessionEvent[] {
  // A complete session's payment settles later (a bank, a transfer) or fails: its `payment_status`
  // follows (internal `checkout_payment.updated`; the collection's own events say it publicly).
  if (f.payment_status === 'paid' || f.payment_status === 'no_payment_required') return [];
  const same = f.payment_status === payment_status && f.last_payment?.status === last.status && f.last_payment?.message === last.message && f.collection === refs.collection && f.payment_method === refs.payment_method;
  if (same) return [];
  return [{ type: 'checkout_payment.updated', data: { id, payment_status, ...refs, last_payment: last, updated_at: at } }];
}

export const checkoutSessionDecider: Decider<CheckoutSessionCommand, CheckoutSessionState, CheckoutSessionEvent> = {
  initialState: { exists: false, owner: null, fields: null, lines: [], signIn: { step: 'email', email: null, customer: null, codeHash: null, expiresAt: null, attempts: 0, codesSent: 0 }, attempt: null },

  decide(command, state) {
    if (command.type === 'CreateCheckoutSession') return decideCreate(command, state);
    if (!ownedBy(state, command.owner)) throw notFound('checkout session', command.sessionId);
    const f = state.fields!;
    const id = command.sessionId;
    const now = command.now;
    const at = now.toISOString();
    const updated = (changes: Partial<CheckoutSessionFields>, reason: string): CheckoutSessionEvent => ({ type: 'checkout_session.updated', data: { id, changes: { ...changes, updated_date: at }, updated_at: at, reason } });
    switch (command.type) {
      case 'SendEmailCode': {
        requireOpen(f, id, now);
        if (f.customer) throw refuse('customer_already_identified', 'The customer is already identified');
        if (state.signIn.codesSent >= EMAIL_CODES_PER_SESSION) throw refuse('email_code_limit', 'Too many codes were requested for this checkout', 'email', 429);
        return [{ type: 'checkout_signin.code_sent', data: { id, email: command.email, customer: command.customerId, code_hash: command.codeHash, expires_at: new Date(now.getTime() + EMAIL_CODE_TTL_MS).toISOString(), sent_at: at } }];
      }
      case 'AskNewCustomer':
        requireOpen(f, id, now);
        if (f.customer) throw refuse('customer_already_identified', 'The customer is already identified');
        return [{ type: 'checkout_signin.new_customer', data: { id, email: command.email } }];
      case 'VerifyEmailCode': {
        requireOpen(f, id, now);
        const s = state.signIn;
        if (f.customer) throw refuse('customer_already_identified', 'The customer is already identified');
        if (s.step !== 'code' || !s.codeHash) throw refuse('email_code_invalid', 'Ask for a code first', 'code', 400);
        if (s.attempts >= EMAIL_CODE_MAX_ATTEMPTS) throw refuse('email_code_attempts_exceeded', 'Too many wrong codes; ask for a new one', 'code', 400);
        if (now.getTime() > Date.parse(s.expiresAt!)) throw refuse('email_code_expired', 'The code has expired; ask for a new one', 'code', 400);
        // A wrong code is recorded (the handler reports it after appending): attempts are limited.
        if (command.codeHash !== s.codeHash) return [{ type: 'checkout_signin.code_failed', data: { id, attempts: s.attempts + 1 } }];
        return [updated({ customer: s.customer }, 'customer_identified')];
      }
      case 'IdentifyCustomer':
        requireOpen(f, id, now);
        if (f.customer) throw refuse('customer_already_identified', 'The customer is already identified');
        if (state.signIn.step !== 'new_customer' || state.signIn.email?.toLowerCase() !== command.email.trim().toLowerCase()) {
          throw refuse('email_not_verified', 'Enter the e-mail first', 'email', 400);
        }
        return [updated({ customer: command.customerId }, 'customer_created')];
      case 'ApplyDiscount': {
        requireOpen(f, id, now);
        if (f.mode === 'setup') throw invalidParam('code', 'This checkout takes no discounts');
        if (f.discounts.some((d) => d.code.toUpperCase() === command.discount.code.toUpperCase() || (d.coupon && d.coupon === command.discount.coupon))) return [];
        if (f.discounts.length >= 20) throw invalidParam('code', 'Too many discounts');
        return [updated(repriced(f, state.lines, [...f.discounts, command.discount]), 'discount_applied')];
      }
      case 'RemoveDiscount': {
        requireOpen(f, id, now);
        const found = f.discounts.find((d) => d.code.toUpperCase() === command.code.trim().toUpperCase());
        if (!found) return [];
        if (found.applied_by !== 'customer') throw invalidParam('code', 'This discount cannot be removed');
        return [updated(repriced(f, state.lines, f.discounts.filter((d) => d !== found)), 'discount_removed')];
      }
      case 'SaveDetails': {
        requireOpen(f, id, now);
        const { changes, lines } = applyDetails(f, state, command.details, now);
        if (Object.keys(changes).length === 0) return [];
        return [{ ...updated(changes, 'details'), ...(lines ? { data: { id, changes: { ...changes, updated_date: at }, updated_at: at, reason: 'details', _lines: lines } as never } : {}) }];
      }
      case 'StartCheckoutPayment': {
        requireOpen(f, id, now);
        // An attempt was started already (another tab, or a decline): one at a time; else it is a retry.
        if (f.last_payment) return [startRetry(f, state, id, command.method, command.attempt, now)];
        const { changes, lines } = applyDetails(f, state, command.details, now);
        const after = { ...f, ...changes };
        checkReady(after, command.method, lines ?? state.lines);
        const events: CheckoutSessionEvent[] = [];
        if (Object.keys(changes).length > 0) {
          events.push({ type: 'checkout_session.updated', data: { id, changes: { ...changes, updated_date: at }, updated_at: at, reason: 'details', ...(lines ? { _lines: lines } : {}) } as never });
        }
        // The session stays open: it completes when the gateway approves the attempt (RecordPaymentOutcome);
        // nothing is made for the attempt (subscription, collection) before that.
        events.push({
          type: 'checkout_payment.started',
          data: { id, customer: after.customer!, subscription: null, collection: null, last_payment: inProgress(now), started_at: at, ...(command.attempt ? { attempt: command.attempt } : {}) },
        });
        return events;
      }
      case 'StartPaymentRetry':
        requireOpen(f, id, now);
        return [startRetry(f, state, id, command.method, command.attempt, now)];
      case 'RetryAttemptCharge': {
        const a = state.attempt;
        if (!a || a.status !== 'in_progress') throw refuse('invalid_state', `Checkout session ${id} has no payment attempt in progress`);
        if (a.charges.some((c) => c.id === command.chargeId)) return [];
        return [{ type: 'checkout_payment.charge_retried', data: { id, charge: command.chargeId, try: a.charges.length + 1 } }];
      }
      case 'FinishAttempt':
        if (!attemptUnfinished(state)) return [];
        return [{ type: 'checkout_payment.finished', data: { id, finished_at: at } }];
      case 'RecordPaymentOutcome': {
        const o = command.outcome;
        const payment_status = o.status === 'paid' ? 'paid' : o.status === 'processing' ? 'processing' : o.status === 'saved' || f.mode === 'setup' ? 'no_payment_required' : 'unpaid';
        const last: LastPayment = {
          status: o.status === 'saved' ? 'paid' : o.status,
          started_at: f.last_payment?.started_at ?? at,
          message: o.message,
          failure_code: o.failure_code,
          decline_code: o.decline_code,
          additional_data: o.additional_data,
        };
        const a = state.attempt;
        const collection = o.collection ?? f.collection ?? (f.status === 'open' ? (a?.collection ?? null) : null);
        const subscription = o.subscription ?? f.subscription ?? (f.status === 'open' ? (a?.subscription ?? null) : null);
        const payment_method = o.payment_method ?? f.payment_method;
        if (f.status === 'complete') return completeOutcome(f, id, payment_status, last, { collection, subscription, payment_method }, at);
        // Expired (its collection voided): a late refusal changes nothing.
        if (f.status === 'expired' && payment_status !== 'paid') return [];
        if (f.status === 'open' && a) {
          // The gateway's answer to the attempt recorded before its call: recorded once (a resumed
          // attempt answered twice decides nothing the second time).
          if (a.status !== 'in_progress') return [];
          if (o.status === 'declined') {
            // Nothing was made for it: the session stays open and may be paid again.
            return [{ type: 'checkout_session.payment_failed', data: { id, payment_status: 'unpaid', payment_method, last_payment: last, updated_at: at, meta_data: f.meta_data } }];
          }
          // open → complete, first of the spec's order: paid, or awaiting the customer's bank or transfer.
          return [{ type: 'checkout_session.completed', data: { id, customer: f.customer!, subscription, collection, payment_status, payment_method, completed_at: at, last_payment: last, meta_data: f.meta_data } }];
        }
        if (f.status === 'open' && (o.status === 'paid' || o.status === 'saved')) {
          // open → complete: the customer paid (approved; a setup's method saved).
          return [{ type: 'checkout_session.completed', data: { id, customer: f.customer!, subscription, collection, payment_status, payment_method, completed_at: at, last_payment: last, meta_data: f.meta_data } }];
        }
        // Declined, or awaiting the customer's bank or transfer: the session stays open (a decline may be retried).
        const same = f.payment_status === payment_status && f.last_payment?.status === last.status && f.collection === collection && f.payment_method === payment_method;
        if (same && last.status !== 'declined') return [];
        return [{ type: 'checkout_payment.updated', data: { id, payment_status, collection, subscription, payment_method, last_payment: last, updated_at: at } }];
      }
      case 'ExpireCheckoutSession': {
        if (f.status === 'complete' && command.expected !== null && awaitingPayment(f)) {
          // Completed, and its payment then failed (a bank's refusal; or completed unpaid under the
          // earlier rule): at `expires_at` what it left ends (its collection voided, its subscription
          // expired); the session stays complete (complete is final).
          if (command.expected !== f.expires_at || now.getTime() < Date.parse(f.expires_at)) return [];
          if (attemptInFlight(f, now)) return [];
          return [{ type: 'checkout_payment.lapsed', data: { id, lapsed_at: at, collection: f.collection, subscription: f.subscription } }];
        }
        // An attempt whose gateway answer is not recorded may have been approved: it is resumed first.
        if (f.status === 'open' && attemptUnanswered(state)) {
          if (command.expected === null) throw refuse('payment_in_progress', `Cannot expire checkout session ${id}: a payment of it is in progress`);
          return [];
        }
        if (f.status !== 'open') {
          if (command.expected === null) throw refuse('invalid_state', `Cannot expire checkout session ${id}: its status is ${f.status}`);
          return [];
        }
        // Money may be in flight (an attempt at the gateway, a bank or transfer awaited): not now.
        if (attemptInFlight(f, now) || f.payment_status === 'processing') {
          if (command.expected === null) throw refuse('payment_in_progress', `Cannot expire checkout session ${id}: a payment of it is in progress`);
          return [];
        }
        if (command.expected !== null && (command.expected !== f.expires_at || now.getTime() < Date.parse(f.expires_at))) return [];
        return [{ type: 'checkout_session.expired', data: { id, expired_at: at, collection: f.collection, subscription: f.subscription, meta_data: f.meta_data } }];
      }
      case 'ForgetBuyer': {
        const due = buyerDataDeadline(f);
        if (!due || now.getTime() < Date.parse(due.at)) return [];
        return [{ type: 'checkout_buyer.forgotten', data: { id, forgotten_at: at } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'checkout_session.created': {
        const { id, account_id, is_test, created_at, _lines, ...fields } = event.data;
        return { ...state, exists: true, owner: { accountId: account_id, mode: is_test ? 'test' : 'live' }, fields: { ...fields, is_test }, lines: _lines, signIn: { ...state.signIn, step: fields.customer ? 'done' : 'email' } };
      }
      case 'checkout_signin.code_sent':
        return { ...state, signIn: { step: 'code', email: event.data.email, customer: event.data.customer, codeHash: event.data.code_hash, expiresAt: event.data.expires_at, attempts: 0, codesSent: state.signIn.codesSent + 1 } };
      case 'checkout_signin.code_failed':
        return { ...state, signIn: { ...state.signIn, attempts: event.data.attempts } };
      case 'checkout_signin.new_customer':
        return { ...state, signIn: { ...state.signIn, step: 'new_customer', email: event.data.email, customer: null, codeHash: null, expiresAt: null, attempts: 0 } };
      default: {
        const lines = event.type === 'checkout_session.updated' && (event.data as { _lines?: CheckoutSessionState['lines'] })._lines;
        const fields = applyCheckoutSessionEvent(state.fields!, event);
        const signIn = fields.customer && state.signIn.step !== 'done' ? { ...state.signIn, step: 'done' as const, codeHash: null } : state.signIn;
        return { ...state, fields, lines: lines || state.lines, signIn, attempt: nextAttempt(state.attempt, event) };
      }
    }
  },
};

/** The session's attempt after an event (internal state). */
function nextAttempt(a: SessionAttempt | null, event: CheckoutSessionEvent): SessionAttempt | null {
  switch (event.type) {
    case 'checkout_payment.started':
    case 'checkout_payment.retried': {
      const plan = event.data.attempt;
      if (!plan) return null;
      const { charge, ...rest } = plan;
      return { ...rest, charges: [{ id: charge, try: 1 }], status: 'in_progress', finished: false };
    }
    case 'checkout_payment.charge_retried':
      return a ? { ...a, charges: [...a.charges, { id: event.data.charge, try: event.data.try }] } : a;
    case 'checkout_session.completed':
      return a ? { ...a, status: event.data.payment_status === 'processing' ? 'processing' : 'paid' } : a;
    case 'checkout_session.payment_failed':
      return a ? { ...a, status: 'declined' } : a;
    case 'checkout_payment.updated':
      return a && a.status !== 'in_progress' ? { ...a, status: event.data.payment_status === 'paid' ? 'paid' : event.data.payment_status === 'processing' ? 'processing' : 'declined' } : a;
    case 'checkout_payment.finished':
      return a ? { ...a, finished: true } : a;
    default:
      return a;
  }
}

/** The public fields after an event: shared by `evolve` and the checkout sessions projection. */
export function applyCheckoutSessionEvent(f: CheckoutSessionFields, event: CheckoutSessionEvent): CheckoutSessionFields {
  switch (event.type) {
    case 'checkout_session.updated':
      return { ...f, ...event.data.changes };
    case 'checkout_session.completed':
      return {
        ...f,
        status: 'complete',
        customer: event.data.customer,
        subscription: event.data.subscription,
        collection: event.data.collection,
        payment_status: event.data.payment_status,
        payment_method: event.data.payment_method ?? f.payment_method,
        completed_at: event.data.completed_at,
        updated_date: event.data.completed_at,
        last_payment: event.data.last_payment,
      };
    case 'checkout_payment.started':
      return { ...f, customer: event.data.customer, subscription: event.data.subscription, collection: event.data.collection, last_payment: event.data.last_payment, updated_date: event.data.started_at, ...(event.data.attempt ? { _attempt_pending: true } : {}) };
    case 'checkout_payment.retried':
      return { ...f, last_payment: event.data.last_payment, ...(event.data.attempt ? { _attempt_pending: true } : {}) };
    case 'checkout_session.payment_failed':
      return { ...f, payment_status: event.data.payment_status, payment_method: event.data.payment_method, last_payment: event.data.last_payment, updated_date: event.data.updated_at, _attempt_pending: false };
    case 'checkout_payment.finished':
      return { ...f, _attempt_pending: false };
    case 'checkout_payment.lapsed':
      return { ...f, _lapsed: true };
    case 'checkout_payment.updated':
    case 'checkout_session.payment_updated':
      return {
        ...f,
        payment_status: event.data.payment_status,
        collection: event.data.collection,
        subscription: event.data.subscription,
        payment_method: event.data.payment_method,
        last_payment: event.data.last_payment,
        updated_date: event.data.updated_at,
      };
    case 'checkout_session.expired':
      return { ...f, status: 'expired', expired_at: event.data.expired_at, updated_date: event.data.expired_at };
    case 'checkout_buyer.forgotten':
      // What the buyer entered reads as its placeholders from now on (the events do too, their key gone).
      return { ...scrubbedSession(f), _buyer_forgotten_at: event.data.forgotten_at };
    default:
      return f;
  }
}

/**
 * A session completed unpaid under the earlier rule (completion on submitting a payment), declined
 * and never paid: it still expires at `expires_at` (its collection voided). Sessions complete only
 * when paid now.
 */
/** Complete, and its asynchronous payment then failed (the bank refused, the voucher lapsed): its collection may be paid again on the page until `expires_at`. */
export function payableAfterRefusal(f: CheckoutSessionFields): boolean {
  return awaitingPayment(f) && f.collection !== null && f.last_payment?.status === 'declined';
}

export function awaitingPayment(f: CheckoutSessionFields): boolean {
  return f.status === 'complete' && f.mode !== 'setup' && f.payment_status === 'unpaid' && !f._lapsed;
}

/**
 * The session's deadline: `expire` at `expires_at` while open (its collection is then voided, its
 * subscription expired), except while a payment awaits the customer's bank or transfer
 * (`processing`: money may be in flight; when it fails, the deadline is back, at once if passed).
 */
export function checkoutSessionDeadline(f: CheckoutSessionFields): { kind: string; at: string } | null {
  if (f._attempt_pending && f.status !== 'expired') {
    // An attempt not answered (or approved and not made) a minute after it started: its process
    // stopped; the deadline resumes it (at once if `expires_at` comes first).
    const started = Date.parse(f.completed_at ?? f.last_payment?.started_at ?? f.updated_date) + STALE_PAYMENT_MS;
    const at = f.status === 'open' ? Math.min(started, Date.parse(f.expires_at)) : started;
    return { kind: 'expire', at: new Date(at).toISOString() };
  }
  return (f.status === 'open' && f.payment_status !== 'processing') || awaitingPayment(f) ? { kind: 'expire', at: f.expires_at } : buyerDataDeadline(f);
}

/** Days a session that ended without ever being tied to a customer keeps its buyer's entries. */
export const BUYER_DATA_RETENTION_DAYS = 30;
export const FORGET_BUYER = 'forget_buyer';

/**
 * When the buyer's entries of a session never tied to a customer are forgotten (docs/personal-data.md):
 * BUYER_DATA_RETENTION_DAYS after it expired unpaid, its key (under which the e-mail, custom field
 * values, shipping address and consent's IP address and user agent it was given are encrypted) is
 * destroyed. A session tied to a customer is forgotten with that customer's erasure instead; a complete
 * session always is (completion names its customer).
 */
export function buyerDataDeadline(f: CheckoutSessionFields): { kind: string; at: string } | null {
  if (f.status !== 'expired' || f.customer || f._buyer_forgotten_at || !f.expired_at) return null;
  return { kind: FORGET_BUYER, at: new Date(Date.parse(f.expired_at) + BUYER_DATA_RETENTION_DAYS * 86_400_000).toISOString() };
}
