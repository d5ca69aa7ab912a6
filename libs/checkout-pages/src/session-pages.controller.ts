import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFileSync } from 'node:fs';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { CheckoutTokenError, type CheckoutDetailsInput, HostedCheckout, type HostedSessionView, type PageRequest } from '#checkout/application/hosted-checkout.js';
import { maskEmail } from '#checkout/application/session-views.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { ApiError } from '#shared/errors.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { type Locale, resolveLocale } from '#web/i18n.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { assetDir } from '#web/page-renderer.js';
import { csrfToken } from '#web/security.js';
import { FIELD_MESSAGES, keptValues, type PageFlash, refusalOf, refusalText, setFlash, takeFlash } from './flash.js';
import { declineMessage, pageMethods, paymentInformationFrom, PSE_BANKS } from './payment-form.js';
import { checkoutPages, withLocale } from './pages.js';

const SESSION_JS = readFileSync(`${assetDir(import.meta.url, '../static')}/session.js`, 'utf8');
const TOKEN_COOKIE = 'cs_token';
const EMAIL_COOKIE = 'cs_email';
/** What a post leaves for the page's next GET (flash.ts), scoped like the token to `/checkout/cs/<id>`. */
const FLASH_COOKIE = 'cs_flash';

type CookieReply = FastifyReply & { setCookie(name: string, value: string, options: Record<string, unknown>): FastifyReply };
type CookieRequest = FastifyRequest & { cookies?: Record<string, string | undefined> };
type PageFailure = { at: 'coupon' | 'identify' | 'pay'; message: string; hint?: string | null };

const origin = (url: string | null) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

const countryNames = (locale: Locale) => new Intl.DisplayNames([locale === 'en' ? 'en' : 'es'], { type: 'region' });

/**
 * The hosted checkout pages: a checkout session `{checkout_url}/cs/<id>#<token>`, payment links
 * `{checkout_url}/pl/<id>` and storefronts `{checkout_url}/sf/<id>`. They call only `HostedCheckout`
 * (libs/checkout) and hold no rule of their own.
 *
 * The token: the session's address carries its signed token in the fragment, which browsers never
 * send. The first visit gets a small page whose one same-origin script (`/checkout/assets/session.js`)
 * posts the fragment (with the CSRF token) to `/cs/<id>/open`; the server verifies it and keeps it in
 * an HttpOnly, SameSite=Lax cookie scoped to `/checkout/cs/<id>`, then redirects to the page without
 * the fragment. Every later request of that session reads the cookie; the token is never in a URL
 * the server sees or logs. Without JavaScript the visitor is told to enable it.
 */
@ApiExcludeController()
@Controller('checkout')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class SessionPagesController {
  constructor(
    private readonly hosted: HostedCheckout,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  @Public()
  @Get('assets/session.js')
  script(@Res() reply: FastifyReply) {
    return reply.header('Cache-Control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(SESSION_JS);
  }

  @Public()
  @Get('cs/:id')
  async show(@Param('id') id: string, @Req() request: CookieRequest, @Res() reply: FastifyReply) {
    const query = (request.query ?? {}) as Record<string, unknown>;
    const token = this.token(request);
    if (!token) {
      const locale = resolveLocale(query.locale);
      const t = checkoutPages.helpers(locale).t;
      return checkoutPages.send(reply, 'session-boot', { action: `/checkout/cs/${id}/open`, csrf: csrfToken(reply) }, { locale, title: t('cs.title') });
    }
    const session = await this.open(id, token);
    // Paid with after_completion redirect (e.g. back from the bank): on to the merchant's page.
    if (session.status === 'complete' && session.payment_status !== 'processing' && session.payment_status !== 'unpaid') {
      const { redirect_url } = await this.hosted.completion(token);
      if (redirect_url) return reply.redirect(redirect_url, 303);
    }
    const locale = this.localeOf(query.locale, session);
    // What the previous post left for this page (a refusal, what the customer typed), worded in this page's language.
    const flash = takeFlash(request, reply, FLASH_COOKIE, `/checkout/cs/${id}`);
    return this.render(request, reply, session, locale, this.failureOf(flash, locale), flash?.values ?? {});
  }

  @Public()
  @Post('cs/:id/open')
  async openSession(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const fields = formFields(request);
    const token = (fields.token ?? '').trim();
    await this.open(id, token); // tampered, foreign, expired: the error page
    (reply as CookieReply).setCookie(TOKEN_COOKIE, token, {
      path: `/checkout/cs/${id}`,
      httpOnly: true,
      sameSite: 'lax',
      secure: this.secure(),
    });
    return reply.redirect(withLocale(`/checkout/cs/${id}`, resolveLocale(fields.locale) === 'en' && fields.locale ? 'en' : 'es-CO'), 303);
  }

  @Public()
  @Post('cs/:id/email')
  email(@Param('id') id: string, @Req() request: CookieRequest, @Res() reply: FastifyReply) {
    return this.act(id, request, reply, 'identify', async (token, f, req) => {
      const view = await this.hosted.requestEmailCode(token, (f.email ?? '').trim(), req);
      // Kept for the next step's form (the session only shows a masked hint), HttpOnly and scoped to this session.
      (reply as CookieReply).setCookie(EMAIL_COOKIE, (f.email ?? '').trim().slice(0, 254), { path: `/checkout/cs/${id}`, httpOnly: true, sameSite: 'lax', secure: this.secure() });
      return view;
    });
  }

  @Public()
  @Post('cs/:id/code')
  code(@Param('id') id: string, @Req() request: CookieRequest, @Res() reply: FastifyReply) {
    return this.act(id, request, reply, 'identify', (token, f, req) => this.hosted.verifyEmailCode(token, (f.code ?? '').trim(), req));
  }

  @Public()
  @Post('cs/:id/customer')
  customer(@Param('id') id: string, @Req() request: CookieRequest, @Res() reply: FastifyReply) {
    return this.act(id, request, reply, 'identify', (token, f, req) =>
      this.hosted.createCustomer(
        token,
        { email: f.email ?? '', name: f.name ?? '', phone: f.phone || null, document_type: f.document_number ? f.document_type || null : null, document_number: f.document_number || null },
        req,
      ),
    );
  }

  @Public()
  @Post('cs/:id/coupon')
  coupon(@Param('id') id: string, @Req() request: CookieRequest, @Res() reply: FastifyReply) {
    return this.act(id, request, reply, 'coupon', (token, f, req) =>
      f.action === 'remove' ? this.hosted.removeCoupon(token, f.code ?? '', req) : this.hosted.applyCoupon(token, (f.code ?? '').trim(), req),
    );
  }

  /**
   * The payment form. Post/redirect/get: every answer is a redirect (303), so a reload never sends the
   * form again and the page's language link leads to the page. A refused field or a refusal goes to
   * the session's page through the flash cookie (its code, never words; what the customer typed, never
   * the card number or CVC); a decline is on the session itself (`last_payment`), which the page shows
   * above the form while the session can be paid.
   */
  @Public()
  @Post('cs/:id/pay')
  async pay(@Param('id') id: string, @Req() request: CookieRequest, @Res() reply: FastifyReply) {
    const token = this.requireToken(request);
    const fields = formFields(request);
    const session = await this.open(id, token);
    const locale = this.localeOf(fields.locale, session);
    const t = checkoutPages.helpers(locale).t;
    const self = withLocale(`/checkout/cs/${id}`, locale);
    if (!session.can_pay) return reply.redirect(self, 303);
    const back = (flash: PageFlash) => {
      setFlash(reply, FLASH_COOKIE, `/checkout/cs/${id}`, { ...flash, values: keptValues(fields) }, this.secure());
      return reply.redirect(self, 303);
    };
    // A saved method of the identified customer (`saved:pm_…`, only one the page offered), or one-off data.
    const saved = (fields.method ?? '').startsWith('saved:') ? session.customer?.saved_payment_methods.find((m) => `saved:${m.id}` === fields.method) : undefined;
    if ((fields.method ?? '').startsWith('saved:') && !saved) return back({ at: 'pay', fields: ['method'] });
    const parsed = saved ? null : paymentInformationFrom(fields, this.methods(session), t);
    if (parsed?.errors) return back({ at: 'pay', fields: Object.keys(parsed.errors) });
    try {
      const how = saved ? { payment_method: saved.id } : { payment_information: parsed!.info };
      const outcome = await this.hosted.pay(token, { ...details(fields, session), ...how }, pageRequest(request));
      // The session keeps the decline (`last_payment`): its page says why, above the form.
      if (outcome.status === 'declined') return back({});
      // The bank first (PSE); the merchant's address after it (the session page sends the customer on once paid).
      const bank = outcome.status === 'processing' ? (outcome.additional_data as { type?: string; redirect_url?: string }) : null;
      if (bank?.type === 'redirect' && bank.redirect_url) return reply.redirect(withLocale(bank.redirect_url, locale), 303);
      if (outcome.redirect_url) return reply.redirect(outcome.redirect_url, 303);
      return reply.redirect(self, 303);
    } catch (err) {
      return this.refused(err, reply, id, locale, 'pay', fields);
    }
  }

  /**
   * A payment link's page, read from the link and its prices: opening it (a customer, a chat's link
   * preview, a crawler; GET or HEAD) writes nothing. Its form posts to the same address when the
   * customer starts, which makes the checkout session and continues in it.
   */
  @Public()
  @Get('pl/:id')
  async paymentLink(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const locale = resolveLocale((request.query as Record<string, unknown>)?.locale);
    const link = await this.hosted.paymentLink(id);
    if (link.closed_reason) return this.linkClosed(request, reply, link, link.closed_reason, locale);
    const t = checkoutPages.helpers(locale).t;
    return checkoutPages.send(
      reply,
      'link',
      { link, action: `/checkout/pl/${id}`, csrf: csrfToken(reply) },
      { locale, title: t('pl.title', { merchant: link.merchant.name }), brand: link.merchant.name, test: link.is_test, path: request.url },
    );
  }

  @Public()
  @Post('pl/:id')
  async startPaymentLink(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const locale = resolveLocale(formFields(request).locale);
    const link = await this.hosted.paymentLink(id);
    if (link.closed_reason) return this.linkClosed(request, reply, link, link.closed_reason, locale);
    try {
      const opened = await this.hosted.openPaymentLink(id, pageRequest(request));
      return reply.redirect(opened.url, 303);
    } catch (err) {
      if (!(err instanceof ApiError) || !['payment_link_used_up', 'payment_link_inactive'].includes(err.code)) throw err;
      return this.linkClosed(request, reply, link, err.code === 'payment_link_used_up' ? 'used_up' : 'inactive', locale);
    }
  }

  private linkClosed(request: FastifyRequest, reply: FastifyReply, link: { merchant: { name: string }; is_test: boolean }, reason: 'inactive' | 'used_up', locale: Locale) {
    const t = checkoutPages.helpers(locale).t;
    return checkoutPages.send(reply, 'link-closed', { reason }, { locale, title: t('pl.closed'), brand: link.merchant.name, test: link.is_test, path: request.url, status: 410 });
  }

  @Public()
  @Get('sf/:id')
  async storefront(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const locale = resolveLocale((request.query as Record<string, unknown>)?.locale);
    const sf = await this.hosted.storefront(id);
    if (!sf.active) throw new PageError(404, 'not_found');
    return checkoutPages.send(reply, 'storefront', { sf, base: `/checkout/sf/${id}`, csrf: csrfToken(reply) }, { locale, title: sf.name, brand: sf.merchant.name, test: sf.is_test, path: request.url });
  }

  @Public()
  @Post('sf/:id/choose')
  async choose(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const fields = formFields(request);
    const quantity = fields.quantity ? Number.parseInt(fields.quantity, 10) : 1;
    const opened = await this.hosted.openStorefrontChoice(id, { price: fields.price ?? '', quantity: Number.isInteger(quantity) && quantity > 0 ? quantity : 1 }, pageRequest(request));
    return reply.redirect(opened.url, 303);
  }

  // ---- helpers

  private secure(): boolean {
    return this.config.checkoutUrl.startsWith('https:');
  }

  private token(request: CookieRequest): string | null {
    return request.cookies?.[TOKEN_COOKIE] || null;
  }

  private requireToken(request: CookieRequest): string {
    const token = this.token(request);
    if (!token) throw new PageError(404, 'not_found');
    return token;
  }

  /** The session the token names, which must be the one in the address (else: not found). */
  private async open(id: string, token: string): Promise<HostedSessionView> {
    if (!token) throw new PageError(404, 'not_found');
    const session = await this.hosted.open(token);
    if (session.id !== id) throw new CheckoutTokenError('invalid');
    return session;
  }

  private localeOf(value: unknown, session: HostedSessionView): Locale {
    return value === undefined || value === null || value === '' ? session.locale : resolveLocale(value);
  }

  private methods(session: HostedSessionView) {
    const only = Object.entries(session.payment_methods).flatMap(([gateway, methods]) => methods.map((method) => ({ gateway, method })));
    return pageMethods(Object.keys(session.payment_methods), null, only);
  }

  private async act(
    id: string,
    request: CookieRequest,
    reply: FastifyReply,
    at: PageFailure['at'],
    action: (token: string, fields: Record<string, string>, req: PageRequest) => Promise<HostedSessionView>,
  ) {
    const token = this.requireToken(request);
    const fields = formFields(request);
    const session = await this.open(id, token);
    const locale = this.localeOf(fields.locale, session);
    try {
      await action(token, fields, pageRequest(request));
    } catch (err) {
      return this.refused(err, reply, id, locale, at, fields);
    }
    return reply.redirect(withLocale(`/checkout/cs/${id}`, locale), 303);
  }

  /** A refusal of what the customer sent: back to the page (303), which says why in its language; a bad token: the error page. */
  private refused(err: unknown, reply: FastifyReply, id: string, locale: Locale, at: PageFailure['at'], fields: Record<string, string>) {
    if (!(err instanceof ApiError) || err instanceof CheckoutTokenError || err.status >= 500) throw err;
    setFlash(reply, FLASH_COOKIE, `/checkout/cs/${id}`, { at, refusal: refusalOf(err), values: keptValues(fields) }, this.secure());
    return reply.redirect(withLocale(`/checkout/cs/${id}`, locale), 303);
  }

  /** The flash's message for its part of the page, in the page's language (never the API's English). */
  private failureOf(flash: PageFlash | null, locale: Locale): PageFailure | null {
    if (!flash?.at) return null;
    const t = checkoutPages.helpers(locale).t;
    if (flash.fields?.length) return { at: flash.at, message: t(FIELD_MESSAGES[flash.fields[0]]) };
    const r = flash.refusal;
    if (!r) return null;
    if (r.type === 'payment_error') return { at: flash.at, message: declineMessage(t, { code: r.code, message: '', extra: { decline_code: r.decline_code } }), hint: t('decline.retry') };
    return { at: flash.at, message: refusalText(t, locale, r), hint: r.attempts_left !== null ? t('cs.code.attempts', { n: r.attempts_left }) : null };
  }

  private render(request: FastifyRequest, reply: FastifyReply, s: HostedSessionView, locale: Locale, error: PageFailure | null, fields: Record<string, string>, status = 200) {
    const helpers = checkoutPages.helpers(locale);
    const t = helpers.t;
    // Complete with a payment the bank refused and no longer payable (past expires_at, its collection voided): ended like an expired one.
    const ended = s.status === 'expired' || (s.status === 'complete' && s.payment_status === 'unpaid' && !s.can_pay);
    const state = ended ? 'expired' : s.payment_status === 'paid' || s.payment_status === 'no_payment_required' ? (s.status === 'complete' ? 'paid' : null) : s.payment_status === 'processing' ? 'processing' : null;
    const heading = state === 'expired' ? t('cs.expired') : state === 'paid' ? t('cs.thanks') : state === 'processing' ? t('cs.processing') : t('cs.title');
    const names = countryNames(locale);
    const amount = s.mode === 'setup' ? '' : ` ${helpers.money(s.total, s.currency)}`;
    // A payment refused earlier (a decline, a bank that refused or timed out): its reason above the retry.
    if (!error && s.can_pay && s.last_payment?.status === 'declined') {
      error = { at: 'pay', message: declineMessage(t, { code: s.last_payment.failure_code ?? 'payment_failed', message: s.last_payment.message ?? '', extra: { decline_code: s.last_payment.decline_code } }), hint: t('decline.retry') };
    }
    const redirects = [origin(s.after_completion.redirect_url_approved), origin(s.after_completion.redirect_url_processing)].filter((o): o is string => !!o);
    return checkoutPages.send(
      reply,
      'session',
      {
        s,
        state,
        heading,
        error,
        base: `/checkout/cs/${s.id}`,
        self: withLocale(`/checkout/cs/${s.id}`, locale),
        csrf: csrfToken(reply),
        methods: this.methods(s),
        banks: PSE_BANKS,
        // Never the card number or CVC.
        values: { ...fields, card_number: '', card_cvc: '', _csrf: '' },
        submitLabel: `${s.cta_text}${amount}`,
        countryName: (code: string) => names.of(code) ?? code,
        typedEmail: (request as CookieRequest).cookies?.[EMAIL_COOKIE] ?? '',
        methodName: (method: string) => (t(`method.${method}`) === `method.${method}` ? method : t(`method.${method}`)),
        // The thank-you page: the next charge as a calendar day in Bogotá; the e-mail masked (the page may be seen by whoever holds the link).
        receipt: {
          nextCharge: s.next_charge_date ? helpers.date(s.next_charge_date) : null,
          total: withCode(helpers.money(s.total, s.currency), s.currency),
          recurring: s.terms ? withCode(helpers.money(s.terms.recurring_total, s.currency), s.currency) : '',
          email: s.customer?.email ? maskEmail(s.customer.email) : null,
        },
      },
      { locale, title: heading, brand: s.merchant.name, test: s.is_test, path: request.url, status, formAction: redirects },
    );
  }
}

/** Who is on the page (recorded with consent). */
function pageRequest(request: FastifyRequest): PageRequest {
  const ua = request.headers['user-agent'];
  return { ip_address: request.ip ?? null, user_agent: typeof ua === 'string' ? ua.slice(0, 500) : null, request_id: String(request.id) };
}

/** Consent, custom fields, shipping address and the chosen amount from the pay form. */
function details(f: Record<string, string>, s: HostedSessionView): CheckoutDetailsInput {
  const out: CheckoutDetailsInput = {};
  if (s.consent.terms_of_service || s.consent.privacy_policy) {
    out.consent = { terms_of_service: f.consent_terms === 'yes', privacy_policy: f.consent_privacy === 'yes' };
  }
  if (s.custom_fields.length) {
    out.custom_fields = Object.fromEntries(s.custom_fields.filter((c) => (f[`cf_${c.key}`] ?? '').trim() !== '').map((c) => [c.key, f[`cf_${c.key}`].trim()]));
  }
  if (s.shipping.required) {
    out.shipping_address = {
      name: f.ship_name || null,
      address_1: f.ship_address_1 ?? '',
      address_2: f.ship_address_2 || null,
      city: f.ship_city ?? '',
      state: f.ship_state ?? '',
      country: f.ship_country ?? '',
      postcode: f.ship_postcode || null,
    } as CheckoutDetailsInput['shipping_address'];
  }
  // `49.900` / `49.900,50` (es-CO) or `49900.50`: thousands dots dropped, a decimal comma made a dot.
  if (s.choose_amount && f.ntp_amount) out.ntp_amount = f.ntp_amount.replace(/[$\s]/g, '').replace(/\.(?=\d{3}(\D|$))/g, '').replace(',', '.');
  return out;
}

/** An amount with its currency's code (`$ 49.900 COP`), once (`COP 49,900` already names it). */
const withCode = (amount: string, currency: string) => (amount.includes(currency.toUpperCase()) ? amount : `${amount} ${currency.toUpperCase()}`);
