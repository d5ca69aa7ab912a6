import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '#platform/config.js';
import { CONFIG, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import type { CommandContext } from '#platform/command-context.js';
import { DashboardSessions, SESSION_LIFETIME_MS, type SignedInMember } from '#team/application/dashboard-sessions.js';
import type { Staff } from '#team/application/staff-context.js';
import { can, type Permission } from '#team/domain/roles.js';
import { formFields } from '#web/form.js';
import { assetDir, PageRenderer } from '#web/page-renderer.js';
import { PageError, type PageFailure, registerErrorPages } from '#web/page-errors.js';
import { API_ERROR_MESSAGES } from '#web/api-error-messages.js';
import { csrfToken } from '#web/security.js';
import { type Locale, mergeCatalogs, resolveLocale, type Translate } from '#web/i18n.js';
import { CREATE_FORMS } from './dashboard-forms.js';
import { DASHBOARD_MESSAGES } from './dashboard-messages.js';
import { AUTH_MESSAGES } from './auth-messages.js';
import { TEAM_MESSAGES } from './team-messages.js';
import { KEYS_MESSAGES } from './keys-messages.js';
import { LIST_MESSAGES } from './list-messages.js';
import { TIMELINE_MESSAGES } from './timeline-messages.js';
import { HOME_MESSAGES } from './home-messages.js';
import { RESOURCES } from './dashboard-resources.js';

export const pages = new PageRenderer(assetDir(import.meta.url, '../../views'), mergeCatalogs(API_ERROR_MESSAGES, DASHBOARD_MESSAGES, AUTH_MESSAGES, TEAM_MESSAGES, KEYS_MESSAGES, LIST_MESSAGES, TIMELINE_MESSAGES, HOME_MESSAGES));
export const DASHBOARD_COOKIE = 'dashboard_session';
/** The second sign-in step (the code), between a right password and a session. */
export const DASHBOARD_PENDING_COOKIE = 'dashboard_pending';
/** The dashboard's language, kept across pages and redirects once chosen (`?locale=` or a form's `locale`). */
export const DASHBOARD_LOCALE_COOKIE = 'dashboard_locale';

/** A signed-in dashboard visitor: a member of an account's team, in the session's mode. */
export type DashboardVisitor = SignedInMember;

/** The signed-in visitor of a request and their account's name, kept for the page that answers it (an error page too). */
const signedIn = new WeakMap<object, { visitor: DashboardVisitor; accountName: string | null }>();

/** The dashboard's language without remembering it: `?locale=`, a posted `locale`, the remembered one, else es-CO. */
export function dashboardLocale(request: FastifyRequest): Locale {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.method === 'POST' && request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const asked = query.locale ?? body.locale;
  if (typeof asked === 'string' && asked !== '') return resolveLocale(asked);
  return resolveLocale(request.cookies?.[DASHBOARD_LOCALE_COOKIE]);
}

/** Pages a member who must still enrol two-factor sign-in may open. */
const ENROLMENT_PATHS = ['/dashboard/account', '/dashboard/logout'];

/** The menu every signed-in dashboard page shows (dash-nav.eta): only what the member's role may open. */
export function navOf(t: Translate, visitor: DashboardVisitor) {
  if (visitor.mustEnrol) return { nav: [], createForms: [], mode: visitor.mode, people: [], role: visitor.role, email: visitor.email };
  return {
    /** The home page (the revenue report) first, for who may read it; then the resources. */
    nav: [...(can(visitor.role, 'reports.read') ? [{ key: 'home', title: t('dash.home.nav') }] : []), ...Object.keys(RESOURCES).map((key) => ({ key, title: t(`dash.resource.${key}`) }))],
    createForms: Object.entries(CREATE_FORMS)
      .filter(([k, form]) => !(k === 'test_clock' && visitor.mode === 'live') && can(visitor.role, form.permission))
      .map(([k]) => ({ key: k })),
    /** The team's own pages: the member's account, then what their role opens. */
    people: [
      { href: '/dashboard/account', title: t('dash.people.account') },
      ...(can(visitor.role, 'team.read') ? [{ href: '/dashboard/team', title: t('dash.people.team') }] : []),
      ...(can(visitor.role, 'keys.read') ? [{ href: '/dashboard/keys', title: t('dash.people.keys') }] : []),
      ...(can(visitor.role, 'security_log.read') ? [{ href: '/dashboard/security-log', title: t('dash.people.security_log') }] : []),
    ],
    mode: visitor.mode,
    role: visitor.role,
    email: visitor.email,
  };
}

/**
 * A failure on a dashboard page is shown in the dashboard's layout: its menu (when signed in), its
 * brand and its footer, in the dashboard's language — never the checkout's "Pago seguro" page.
 */
registerErrorPages('/dashboard', (request: FastifyRequest, reply: FastifyReply, failure: PageFailure) => {
  const locale = dashboardLocale(request);
  const t = pages.helpers(locale).t;
  const who = signedIn.get(request);
  const title = t(failure.titleKey);
  const brand = who?.accountName ? `${who.accountName} · ${t('dash.brand')}` : t('dash.brand');
  return pages.send(
    reply,
    'dash-error',
    { heading: title, message: failure.body(t, locale), reference: failure.reference, signedIn: !!who, csrf: csrfToken(reply), ...(who ? navOf(t, who.visitor) : {}) },
    { locale, title, brand, test: who?.visitor.mode === 'test', path: request.method === 'GET' ? request.url : null, status: failure.status },
  );
});

/** The client's address as the security log records it. */
export const addressOf = (request: FastifyRequest): string | null => request.ip ?? null;
export const userAgentOf = (request: FastifyRequest): string | null => {
  const ua = request.headers['user-agent'];
  return typeof ua === 'string' ? ua : null;
};

/**
 * What every dashboard controller needs: who is signed in (checked on every request), whether their
 * role allows what they ask (a 403 page otherwise: hiding a button is not a check), the page's
 * language, and sending a page in the dashboard's layout.
 */
@Injectable()
export class DashboardPage {
  constructor(
    private readonly sessions: DashboardSessions,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  get secureCookies(): boolean {
    return this.config.dashboardUrl.startsWith('https:') || this.config.portalUrl.startsWith('https:');
  }

  /** The signed-in visitor (null: not signed in), remembered with the account's name for this request's page, error pages included. */
  async visitor(request: FastifyRequest): Promise<DashboardVisitor | null> {
    const visitor = await this.sessions.resolve(request.cookies?.[DASHBOARD_COOKIE]);
    if (visitor) signedIn.set(request, { visitor, accountName: (await this.store.get<{ name?: string }>('accounts', visitor.accountId))?.name ?? null });
    return visitor;
  }

  /**
   * The visitor allowed `permission`, or null after answering: not signed in → the sign-in page; the
   * account requires two-factor and the member has not enrolled → enrolment; not allowed → a 403 page.
   */
  async require(request: FastifyRequest, reply: FastifyReply, permission: Permission | null): Promise<DashboardVisitor | null> {
    const visitor = await this.visitor(request);
    if (!visitor) {
      reply.redirect('/dashboard', 303);
      return null;
    }
    const path = request.url.split('?')[0];
    if (visitor.mustEnrol && !ENROLMENT_PATHS.some((p) => path === p || path.startsWith(`${p}/`))) {
      reply.redirect('/dashboard/account/two-factor', 303);
      return null;
    }
    if (permission) this.authorize(visitor, permission);
    return visitor;
  }

  /** A 403 page, and nothing done, when the visitor's role lacks `permission`. */
  authorize(visitor: DashboardVisitor, permission: Permission): void {
    if (!can(visitor.role, permission)) throw new PageError(403, 'forbidden');
  }

  /** The context of a command the visitor runs: their account and mode, the member as actor. */
  contextOf(visitor: DashboardVisitor, request: FastifyRequest): CommandContext {
    return { accountId: visitor.accountId, mode: visitor.mode, requestId: String(request.id), idempotencyKey: null, actor: { type: 'dashboard', member: visitor.memberId } };
  }

  /** The visitor as the team's and keys' commands name who acts (with the address for the security log). */
  staffOf(visitor: DashboardVisitor, request: FastifyRequest): Staff & { member: string } {
    return { accountId: visitor.accountId, member: visitor.memberId, address: addressOf(request) };
  }

  setCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds?: number) {
    reply.setCookie(name, value, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure: this.secureCookies, ...(maxAgeSeconds ? { maxAge: maxAgeSeconds } : {}) });
  }

  /** The session cookie of a member just signed in (or signed in again after their own action ended their sessions). */
  setSessionCookie(reply: FastifyReply, value: string) {
    this.setCookie(reply, DASHBOARD_COOKIE, value, SESSION_LIFETIME_MS / 1000);
  }

  clearCookie(reply: FastifyReply, name: string) {
    reply.clearCookie(name, { path: '/dashboard' });
  }

  /**
   * The page's language: `?locale=` or a posted `locale` field (then remembered in a cookie, so links
   * and redirects keep it), else the remembered one, else Spanish (es-CO).
   */
  locale(request: FastifyRequest, reply: FastifyReply): Locale {
    const asked = (request.query as Record<string, unknown>)?.locale ?? (request.method === 'POST' ? formFields(request).locale : undefined);
    if (typeof asked === 'string' && asked !== '') {
      const locale = dashboardLocale(request);
      reply.setCookie(DASHBOARD_LOCALE_COOKIE, locale, { path: '/dashboard', httpOnly: true, sameSite: 'lax', secure: this.secureCookies, maxAge: 365 * 24 * 60 * 60 });
      return locale;
    }
    return resolveLocale(request.cookies?.[DASHBOARD_LOCALE_COOKIE]);
  }

  t(request: FastifyRequest, reply: FastifyReply): Translate {
    return pages.helpers(this.locale(request, reply)).t;
  }

  /**
   * A signed-in page. `titleKey` and `titleParams`: the page title's message. `path`: the GET address
   * the language switch links to (a page answering a form post names the page the form is on).
   */
  async send(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, view: string, data: Record<string, unknown>, titleKey: string, titleParams: Record<string, string>, status: number, path: string = request.url) {
    const locale = this.locale(request, reply);
    const t = pages.helpers(locale).t;
    const accountName = signedIn.get(request)?.accountName ?? (await this.store.get<{ name?: string }>('accounts', visitor.accountId))?.name ?? null;
    return pages.send(reply, view, { ...data, csrf: csrfToken(reply), ...navOf(t, visitor), here: path, can: (p: Permission) => can(visitor.role, p) }, { locale, title: t(titleKey, titleParams), brand: accountName ? `${accountName} · ${t('dash.brand')}` : t('dash.brand'), test: visitor.mode === 'test', path, status });
  }

  /** A page for someone not signed in (sign-in, invitation, password reset). */
  sendPublic(request: FastifyRequest, reply: FastifyReply, view: string, data: Record<string, unknown>, titleKey: string, status: number, path: string = request.method === 'GET' ? request.url : '/dashboard') {
    const locale = this.locale(request, reply);
    const t = pages.helpers(locale).t;
    return pages.send(reply, view, { ...data, csrf: csrfToken(reply) }, { locale, title: t(titleKey), brand: t('dash.brand'), path, status });
  }
}
