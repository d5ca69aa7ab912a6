import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { Config } from '#platform/config.js';
import { CONFIG, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { ApiError } from '#shared/errors.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { type Locale, mergeCatalogs, resolveLocale, type Translate } from '#web/i18n.js';
import { API_ERROR_MESSAGES, apiErrorText } from '#web/api-error-messages.js';
import { assetDir, PageRenderer } from '#web/page-renderer.js';
import { PageErrorFilter } from '#web/page-errors.js';
import { csrfToken } from '#web/security.js';
import { CustomerPortal, type PortalVisitor } from '../application/customer-portal.js';
import { PageSessionSigning, portalSessionIdOf } from '../application/portal-signing.js';
import { PORTAL_BROWSER_SESSION_TTL_MS, portalSessionDecider, portalSessionStream } from '../domain/portal-session.decider.js';
import { PORTAL_MESSAGES } from './portal-messages.js';

const pages = new PageRenderer(assetDir(import.meta.url, '../../views'), mergeCatalogs(API_ERROR_MESSAGES, PORTAL_MESSAGES));
export const PORTAL_COOKIE = 'portal_session';

const localeOf = (request: FastifyRequest): Locale => {
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  return resolveLocale(body.locale ?? (request.query as Record<string, unknown>)?.locale);
};
const home = (locale: Locale, notice?: string) => `/portal/p?locale=${locale === 'en' ? 'en' : 'es'}${notice ? `&notice=${notice}` : ''}`;
const confirmCancel = (locale: Locale, id: string, cancelAt: 'now' | 'period_end') => `/portal/p/subscriptions/${id}/cancel?cancel_at=${cancelAt}&locale=${locale === 'en' ? 'en' : 'es'}`;

/** An API refusal in the portal's words, naming the field by the portal's label for it. */
const refusal = (error: ApiError, locale: Locale, t: Translate) =>
  apiErrorText(error, {
    t,
    locale,
    field: (param) => {
      const key = `portal.field.${param.replace(/^.*\[([^\]]+)\]$/, '$1')}`;
      const words = t(key);
      return words === key ? param : words;
    },
  });

/**
 * The customer portal, `{portal_url}/p/…`. The link `p/login/<url_id>` opens once (portal_session.opened
 * appended with the session's expected revision) and starts a browser session: a signed, HttpOnly,
 * SameSite=Lax cookie scoped to /portal naming the account, mode, portal session and customer, for
 * one hour. Every page and action reads the customer from that cookie only; ids in a request are
 * checked against it (another customer's id is a 404, exactly like an id that does not exist).
 */
@ApiExcludeController()
@Controller('portal/p')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class PortalPagesController {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly signing: PageSessionSigning,
    private readonly portal: CustomerPortal,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  @Public()
  @Get('login/:urlId')
  async login(@Param('urlId') urlId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const locale = localeOf(request);
    if (!/^[A-Za-z0-9]{20,80}$/.test(urlId)) return this.message(reply, locale, 'used', 404);
    const sessionId = portalSessionIdOf(urlId);
    let opened;
    try {
      // The opening is recorded in the session's account and mode, with the portal as the actor.
      const { state } = await this.executor.load(portalSessionDecider, portalSessionStream(sessionId));
      const ctx = state.owner && state.fields
        ? { accountId: state.owner.accountId, mode: state.owner.mode, requestId: String(request.id), idempotencyKey: null, actor: { type: 'portal' as const, portal_session: sessionId, customer: state.fields.customer } }
        : null;
      opened = await this.executor.execute(portalSessionDecider, portalSessionStream(sessionId), (now) => ({ type: 'OpenPortalSession' as const, sessionId, now }), ctx);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'portal_link_expired') return this.message(reply, locale, 'expired', 410);
      if (error instanceof ApiError && (error.code === 'portal_link_used' || error.status === 404)) return this.message(reply, locale, 'used', error.status);
      throw error;
    }
    const f = opened.state.fields!;
    const owner = opened.state.owner!;
    const exp = this.executor.now().getTime() + PORTAL_BROWSER_SESSION_TTL_MS;
    const value = await this.signing.sign({ sid: f.id, acct: owner.accountId, mode: owner.mode, cus: f.customer, exp });
    reply.setCookie(PORTAL_COOKIE, value, { path: '/portal', httpOnly: true, sameSite: 'lax', secure: this.config.portalUrl.startsWith('https:'), maxAge: PORTAL_BROWSER_SESSION_TTL_MS / 1000 });
    return reply.redirect(home(locale), 303);
  }

  @Public()
  @Get()
  async overview(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    const locale = localeOf(request);
    if (!visitor) return this.message(reply, locale, 'ended', 401);
    const notice = String((request.query as Record<string, unknown>)?.notice ?? '');
    return this.renderOverview(request, reply, visitor, locale, { notice: /^[a-z_]+$/.test(notice) ? notice : null });
  }

  @Public()
  @Post('subscriptions/:id/:action')
  async act(@Param('id') id: string, @Param('action') action: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    const locale = localeOf(request);
    if (!visitor) return this.message(reply, locale, 'ended', 401);
    const fields = formFields(request);
    try {
      switch (action) {
        case 'pause':
          await this.portal.pause(visitor, String(request.id), id);
          return reply.redirect(home(locale, 'paused'), 303);
        case 'resume':
          await this.portal.resume(visitor, String(request.id), id);
          return reply.redirect(home(locale, 'resumed'), 303);
        case 'cancel': {
          const cancelAt = fields.cancel_at === 'now' ? 'now' : 'period_end';
          // Only the confirmation page's form cancels; any other post is asked to confirm first.
          if (fields.confirm !== 'yes') {
            await this.portal.ownSubscription(visitor, id);
            return reply.redirect(confirmCancel(locale, id, cancelAt), 303);
          }
          await this.portal.cancel(visitor, String(request.id), id, cancelAt);
          return reply.redirect(home(locale, cancelAt === 'now' ? 'canceled' : 'pending_cancel'), 303);
        }
        case 'keep':
          // A cancellation scheduled for the period end, withdrawn (the API's resume on pending_cancel).
          await this.portal.resume(visitor, String(request.id), id);
          return reply.redirect(home(locale, 'kept'), 303);
        case 'payment_method':
          return this.replaceCard(request, reply, visitor, locale, id, fields);
        default:
          return this.message(reply, locale, 'used', 404);
      }
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
      // The API's refusal (commitment, state) in the page's words, shown on the account page.
      return this.renderOverview(request, reply, visitor, locale, { error: refusal(error, locale, pages.helpers(locale).t), errorFor: id, status: error.status });
    }
  }

  @Public()
  @Post('collections/:id/pay')
  async pay(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    const locale = localeOf(request);
    if (!visitor) return this.message(reply, locale, 'ended', 401);
    try {
      await this.portal.payCollection(visitor, String(request.id), id, formFields(request).payment_method ?? '');
      return reply.redirect(home(locale, 'collection_paid'), 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
      // A decline (402) or a refusal, in the page's words, next to that collection.
      return this.renderOverview(request, reply, visitor, locale, { error: refusal(error, locale, pages.helpers(locale).t), errorFor: id, status: error.status });
    }
  }

  /**
   * The confirmation step of a cancellation (no script needed): what ends and when, what is lost,
   * a form (CSRF) that cancels, and a way back that keeps the subscription.
   */
  @Public()
  @Get('subscriptions/:id/cancel')
  async confirmCancelPage(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    const locale = localeOf(request);
    if (!visitor) return this.message(reply, locale, 'ended', 401);
    await this.portal.ownSubscription(visitor, id);
    const sub = (await this.portal.overview(visitor)).subscriptions.find((s) => s.id === id);
    if (!sub) return this.message(reply, locale, 'used', 404);
    const cancelAt = (request.query as Record<string, unknown>)?.cancel_at === 'now' ? 'now' : 'period_end';
    const t = pages.helpers(locale).t;
    const account = await this.store.get<{ name?: string }>('accounts', visitor.accountId);
    return pages.send(
      reply,
      'portal-cancel',
      { sub, cancelAt, csrf: csrfToken(reply), backHref: home(locale) },
      { locale, title: t(`portal.confirm.${cancelAt}.title`), brand: account?.name ?? null, test: visitor.mode === 'test', path: request.url },
    );
  }

  @Public()
  @Get('subscriptions/:id/payment_method')
  async cardForm(@Param('id') id: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.visitor(request);
    const locale = localeOf(request);
    if (!visitor) return this.message(reply, locale, 'ended', 401);
    const sub = await this.portal.ownSubscription(visitor, id);
    return this.renderCard(reply, locale, id, sub.status, {});
  }

  @Public()
  @Post('logout')
  logout(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    reply.clearCookie(PORTAL_COOKIE, { path: '/portal' });
    return this.message(reply, localeOf(request), 'ended', 200);
  }

  private async replaceCard(request: FastifyRequest, reply: FastifyReply, visitor: PortalVisitor, locale: Locale, id: string, fields: Record<string, string>) {
    const sub = await this.portal.ownSubscription(visitor, id);
    const month = /^\d{1,2}$/.test(fields.exp_month ?? '') ? Number.parseInt(fields.exp_month, 10) : NaN;
    const year = /^\d{2,4}$/.test(fields.exp_year ?? '') ? Number.parseInt(fields.exp_year, 10) : NaN;
    const card = {
      number: String(fields.number ?? '').replace(/[\s-]/g, ''),
      exp_month: month,
      exp_year: year < 100 ? 2000 + year : year,
      ...(fields.cvc ? { cvc: fields.cvc } : {}),
      ...(fields.holder_name ? { holder_name: fields.holder_name } : {}),
    };
    try {
      const result = await this.portal.replaceCard(visitor, String(request.id), id, card);
      if (result.recovery === 'failed') {
        const t = pages.helpers(locale).t;
        const reason = result.recovery_failure?.failure_code
          ? refusal({ code: result.recovery_failure.failure_code, type: 'payment_error', param: null, message: '', extra: { decline_code: result.recovery_failure.decline_code } } as unknown as ApiError, locale, t)
          : t('api_error.payment_failed');
        return this.renderCard(reply, locale, id, sub.status, { formError: t('portal.card_declined', { reason }), status: 402 });
      }
      return reply.redirect(home(locale, result.recovery === 'paid' ? 'recovered' : 'card'), 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.status === 404) throw error;
      // The gateway's or the API's message, next to the field it names (card[number], card[exp_month]…).
      const field = /number/.test(error.param ?? '') ? 'number' : /exp_month/.test(error.param ?? '') ? 'exp_month' : /exp_year|expired/.test(`${error.param} ${error.code}`) ? 'exp_year' : /cvc/.test(error.param ?? '') ? 'cvc' : null;
      const message = refusal(error, locale, pages.helpers(locale).t);
      return this.renderCard(reply, locale, id, sub.status, { errors: field ? { [field]: message } : {}, formError: field ? null : message, status: error.status });
    }
  }

  private async visitor(request: FastifyRequest): Promise<PortalVisitor | null> {
    const claims = await this.signing.verify(request.cookies?.[PORTAL_COOKIE], this.executor.now());
    if (!claims || !claims.cus) return null;
    return { accountId: claims.acct, mode: claims.mode, customer: claims.cus, portalSession: claims.sid };
  }

  private async renderOverview(request: FastifyRequest, reply: FastifyReply, visitor: PortalVisitor, locale: Locale, extra: { notice?: string | null; error?: string; errorFor?: string; status?: number }) {
    const data = await this.portal.overview(visitor);
    const returnUrl = (await this.executor.load(portalSessionDecider, portalSessionStream(visitor.portalSession))).state.fields?.return_url ?? null;
    const t = pages.helpers(locale).t;
    const account = await this.store.get<{ name?: string }>('accounts', visitor.accountId);
    return pages.send(
      reply,
      'portal',
      { ...data, csrf: csrfToken(reply), checkoutUrl: this.config.checkoutUrl, returnUrl, notice: extra.notice ?? null, error: extra.error ?? null, errorFor: extra.errorFor ?? null },
      { locale, title: t('portal.title'), brand: account?.name ?? null, test: visitor.mode === 'test', path: request.method === 'GET' ? request.url : '/portal/p', status: extra.status ?? 200 },
    );
  }

  private renderCard(reply: FastifyReply, locale: Locale, id: string, status: string, extra: { errors?: Record<string, string>; formError?: string | null; status?: number }) {
    const t = pages.helpers(locale).t;
    return pages.send(reply, 'portal-card', { id, subStatus: status, csrf: csrfToken(reply), errors: extra.errors ?? {}, formError: extra.formError ?? null }, { locale, title: t('portal.card_title'), status: extra.status ?? 200 });
  }

  private message(reply: FastifyReply, locale: Locale, kind: 'used' | 'expired' | 'ended', status: number) {
    const t = pages.helpers(locale).t;
    const key = kind === 'ended' ? 'portal.session.ended' : `portal.link.${kind}`;
    return pages.send(reply, 'portal-message', { heading: t(`${key}.title`), body: t(`${key}.body`) }, { locale, title: t(`${key}.title`), status });
  }
}
