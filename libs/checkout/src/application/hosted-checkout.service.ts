import { randomInt } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CouponRedemptions } from '#coupons/application/coupon-redemptions.js';
import { CreateCustomerCommand } from '#customers/application/create-customer.js';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { CustomerEmailClaims } from '#customers/application/customer-email-claims.js';
import { MAIL, type MailMessage, type MailPort } from '#mail/mail.port.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { ApiError, DomainError, invalidParam } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { currency as currencyOf, formatAmount } from '#shared/money.js';
import { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { type CheckoutSessionState, type DetailsInput, type SessionDiscount, EMAIL_CODE_MAX_ATTEMPTS, checkoutSessionDecider, checkoutSessionStream } from '../domain/checkout-session.decider.js';
import { onSession } from './checkout-session-command.js';
import { CheckoutTokens } from './checkout-tokens.js';
import {
  type CheckoutDetailsInput,
  CheckoutTokenError,
  HostedCheckout,
  type HostedSessionView,
  type OpenedSession,
  type PageRequest,
  type PayInput,
  type PayOutcome,
  type PaymentLinkView,
  type StorefrontView,
} from './hosted-checkout.js';
import { PayCheckoutSession } from './pay-checkout-session.js';
import { PaymentLinkPages } from './payment-link-pages.js';
import { SessionViews } from './session-views.js';

/**
 * Where the checkout's e-mails go when no MAIL adapter is configured in this process (kept in
 * memory). It also keeps the last 500 test-mode messages the checkout sent through a configured
 * adapter, so tests read sign-in codes the same way whichever adapter is in place.
 */
@Injectable()
export class CheckoutMailFallback implements MailPort {
  readonly messages: Array<MailMessage & { id: string }> = [];
  async send(message: MailMessage) {
    return { id: this.keep(message) };
  }
  /** Records a test-mode message sent elsewhere. */
  record(message: MailMessage): void {
    if (message.mode === 'test') this.keep(message);
  }
  private keep(message: MailMessage): string {
    const id = `mail_${this.messages.length + 1}`;
    this.messages.push({ ...message, id });
    if (this.messages.length > 500) this.messages.splice(0, this.messages.length - 500);
    return id;
  }
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

/** Session-bound work of the hosted pages: the token names the session; everything is decided against its stream. */
@Injectable()
export class HostedCheckoutService extends HostedCheckout {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly tokens: CheckoutTokens,
    private readonly clocks: TestClockTime,
    private readonly views: SessionViews,
    private readonly payments: PayCheckoutSession,
    private readonly coupons: CouponRedemptions,
    private readonly commands: CommandBus,
    private readonly projections: ProjectionEngine,
    private readonly links: PaymentLinkPages,
    private readonly fallbackMail: CheckoutMailFallback,
    private readonly claims: CustomerEmailClaims,
    @Optional() @Inject(MAIL) private readonly mail: MailPort | null,
  ) {
    super();
  }

  /** The session a token names, the context it is decided in, and its state. */
  private async session(token: string, req?: PageRequest): Promise<{ id: string; ctx: CommandContext; state: CheckoutSessionState }> {
    const claims = await this.tokens.verify(token);
    const { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(claims.sid));
    if (!state.exists || Date.parse(state.fields!.expires_at) !== claims.exp) throw new CheckoutTokenError('invalid');
    const request: CommandContext = { accountId: state.owner!.accountId, mode: state.owner!.mode, requestId: req?.request_id ?? null, idempotencyKey: null };
    const ctx = await this.clocks.contextFor(request, state.fields!.test_clock);
    // Past its time a session the customer never tried to pay is gone; one they paid or tried to pay (expired unpaid after a decline) shows its outcome.
    if (this.executor.now(ctx).getTime() >= claims.exp && !state.fields!.completed_at && !state.fields!.last_payment) throw new CheckoutTokenError('expired');
    return { id: claims.sid, ctx, state };
  }

  private async current(id: string, ctx: CommandContext, position: string | null = null): Promise<HostedSessionView> {
    await this.projections.waitFor(position);
    const { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(id));
    return this.views.view(id, state, this.executor.now(ctx));
  }

  async open(token: string): Promise<HostedSessionView> {
    const { id, ctx, state } = await this.session(token);
    return this.views.view(id, state, this.executor.now(ctx));
  }

  async requestEmailCode(token: string, email: string, req: PageRequest): Promise<HostedSessionView> {
    const { id, ctx } = await this.session(token, req);
    if (typeof email !== 'string' || !EMAIL.test(email.trim())) throw invalidParam('email', 'Enter a valid e-mail address');
    const clean = email.trim();
    const holderId = await this.claims.holder(ctx, clean);
    const holder = holderId ? (await this.executor.load(customerDecider, customerStream(holderId))).state : null;
    if (!holder?.exists || holder.fields!.email.toLowerCase() !== clean.toLowerCase()) {
      const { position } = await onSession(this.executor, ctx, id, (now) => ({ type: 'AskNewCustomer', owner: ctx, sessionId: id, email: clean, now }));
      return this.current(id, ctx, position);
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const codeHash = await this.tokens.hash(`${id}:${code}`);
    const { position } = await onSession(this.executor, ctx, id, (now) => ({ type: 'SendEmailCode', owner: ctx, sessionId: id, email: clean, customerId: holderId!, codeHash, now }));
    const { state } = await this.executor.load(checkoutSessionDecider, checkoutSessionStream(id));
    const es = state.fields!.locale === 'es-CO';
    await this.sendMail({
      to: holder.fields!.email,
      subject: es ? `Tu código de verificación: ${code}` : `Your verification code: ${code}`,
      text: es
        ? `Tu código para continuar el pago es ${code}. Vence en 10 minutos. Si no lo pediste, ignora este mensaje.`
        : `Your code to continue the checkout is ${code}. It expires in 10 minutes. If you did not ask for it, ignore this message.`,
      accountId: ctx.accountId,
      mode: ctx.mode,
      kind: 'checkout.email_code',
      refs: { checkout_session: id, customer: holderId! },
    });
    return this.current(id, ctx, position);
  }

  private async sendMail(message: MailMessage): Promise<void> {
    if (!this.mail) {
      await this.fallbackMail.send(message);
      return;
    }
    await this.mail.send(message);
    this.fallbackMail.record(message);
  }

  async verifyEmailCode(token: string, code: string, req: PageRequest): Promise<HostedSessionView> {
    const { id, ctx } = await this.session(token, req);
    if (typeof code !== 'string' || !/^\d{6}$/.test(code.trim())) throw new ApiError(400, 'invalid_request_error', 'email_code_invalid', 'The code has 6 digits', 'code');
    const codeHash = await this.tokens.hash(`${id}:${code.trim()}`);
    const done = await onSession(this.executor, ctx, id, (now) => ({ type: 'VerifyEmailCode', owner: ctx, sessionId: id, codeHash, now }));
    if (done.events.some((e) => e.type === 'checkout_signin.code_failed')) {
      const left = Math.max(0, EMAIL_CODE_MAX_ATTEMPTS - done.state.signIn.attempts);
      throw new ApiError(400, 'invalid_request_error', 'email_code_invalid', `The code is not correct (${left} attempts left)`, 'code', { attempts_left: left });
    }
    return this.current(id, ctx, done.position);
  }

  async createCustomer(
    token: string,
    input: { email: string; name: string; phone?: string | null; document_type?: string | null; document_number?: string | null },
    req: PageRequest,
  ): Promise<HostedSessionView> {
    const { id, ctx, state } = await this.session(token, req);
    const email = typeof input.email === 'string' ? input.email.trim() : '';
    // The session's rules first (the e-mail asked for, not identified yet): nothing is created otherwise.
    checkoutSessionDecider.decide({ type: 'IdentifyCustomer', owner: ctx, sessionId: id, customerId: 'cus_check', email, now: this.executor.now(ctx) }, state);
    if (typeof input.name !== 'string' || input.name.trim() === '') throw invalidParam('name', 'Enter your name');
    const fields = {
      email,
      name: input.name.trim(),
      ...(input.phone ? { phone: input.phone } : {}),
      ...(input.document_type ? { document_type: input.document_type } : {}),
      ...(input.document_number ? { document_number: input.document_number } : {}),
    };
    const created = await this.commands.execute(new CreateCustomerCommand(ctx, fields as never));
    const { position } = await onSession(this.executor, ctx, id, (now) => ({ type: 'IdentifyCustomer', owner: ctx, sessionId: id, customerId: created.id, email, now }));
    return this.current(id, ctx, position);
  }

  async applyCoupon(token: string, code: string, req: PageRequest): Promise<HostedSessionView> {
    const { id, ctx, state } = await this.session(token, req);
    const f = state.fields!;
    if (typeof code !== 'string' || code.trim() === '') throw invalidParam('code', 'Enter a code');
    const [resolved] = await this.coupons.resolve(ctx, [{ code: code.trim() }], f.currency, this.executor.now(ctx)).catch((error) => {
      if (error instanceof DomainError) throw new DomainError(error.code, error.message, 'code', error.status);
      throw error;
    });
    const cur = currencyOf(f.currency)!;
    const discount: SessionDiscount = {
      id: newId('sd'),
      code: resolved.code,
      amount: resolved.amount === null ? null : formatAmount(resolved.amount, cur),
      percent: resolved.percent,
      // Typed by the customer: no request names a duration, so the coupon's own applies.
      duration_in_collections: resolved.coupon_duration_in_collections,
      coupon: resolved.coupon,
      applied_by: 'customer',
    };
    const { position } = await onSession(this.executor, ctx, id, (now) => ({ type: 'ApplyDiscount', owner: ctx, sessionId: id, discount, now }));
    return this.current(id, ctx, position);
  }

  async removeCoupon(token: string, code: string, req: PageRequest): Promise<HostedSessionView> {
    const { id, ctx } = await this.session(token, req);
    const { position } = await onSession(this.executor, ctx, id, (now) => ({ type: 'RemoveDiscount', owner: ctx, sessionId: id, code: String(code ?? ''), now }));
    return this.current(id, ctx, position);
  }

  async saveDetails(token: string, input: CheckoutDetailsInput, req: PageRequest): Promise<HostedSessionView> {
    const { id, ctx } = await this.session(token, req);
    const details = detailsOf(input, req);
    const { position } = await onSession(this.executor, ctx, id, (now) => ({ type: 'SaveDetails', owner: ctx, sessionId: id, details, now }));
    return this.current(id, ctx, position);
  }

  async pay(token: string, input: PayInput, req: PageRequest): Promise<PayOutcome> {
    const { id, ctx } = await this.session(token, req);
    const { outcome, position } = await this.payments.pay(ctx, id, input, detailsOf(input, req));
    const session = await this.current(id, ctx, position);
    const ac = session.after_completion;
    const redirect = (url: string | null) => (ac.type === 'redirect' ? url : null);
    if (outcome.status === 'paid' || outcome.status === 'saved') return { status: 'complete', session, redirect_url: redirect(ac.redirect_url_approved) };
    if (outcome.status === 'processing') return { status: 'processing', session, additional_data: outcome.additional_data ?? {}, redirect_url: redirect(ac.redirect_url_processing) };
    return { status: 'declined', session, message: outcome.message ?? 'The payment was declined', failure_code: outcome.failure_code ?? 'card_declined', decline_code: outcome.decline_code, retry_allowed: session.can_pay };
  }

  async completion(token: string): Promise<{ session: HostedSessionView; redirect_url: string | null }> {
    const session = await this.open(token);
    const ac = session.after_completion;
    if (session.status === 'expired' || ac.type !== 'redirect') return { session, redirect_url: null };
    if (session.status === 'complete' && (session.payment_status === 'paid' || session.payment_status === 'no_payment_required')) return { session, redirect_url: ac.redirect_url_approved };
    if (session.payment_status === 'processing') return { session, redirect_url: ac.redirect_url_processing ?? null };
    return { session, redirect_url: null };
  }

  paymentLink(linkId: string): Promise<PaymentLinkView> {
    return this.links.paymentLink(linkId);
  }

  openPaymentLink(linkId: string, req: PageRequest): Promise<OpenedSession> {
    return this.links.openPaymentLink(linkId, req);
  }

  storefront(storefrontId: string): Promise<StorefrontView> {
    return this.links.storefront(storefrontId);
  }

  openStorefrontChoice(storefrontId: string, choice: { price: string; quantity?: number }, req: PageRequest): Promise<OpenedSession> {
    return this.links.openStorefrontChoice(storefrontId, choice, req);
  }
}

/** The page's details with who submitted them (consent is recorded with the IP address and user agent). */
function detailsOf(input: CheckoutDetailsInput, req: PageRequest): DetailsInput {
  const d: DetailsInput = { ip_address: req.ip_address ?? null, user_agent: req.user_agent ? String(req.user_agent).slice(0, 500) : null };
  if (input.consent !== undefined) d.consent = input.consent;
  if (input.custom_fields !== undefined) d.custom_fields = input.custom_fields;
  if (input.shipping_address !== undefined) d.shipping_address = input.shipping_address;
  if (input.ntp_amount !== undefined) d.ntp_amount = input.ntp_amount;
  return d;
}
