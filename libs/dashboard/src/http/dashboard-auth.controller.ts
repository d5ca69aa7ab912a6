import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { ApiError } from '#shared/errors.js';
import { AcceptInvitationCommand } from '#team/application/accept-invitation.js';
import { can, type Role } from '#team/domain/roles.js';
import { DashboardSessions } from '#team/application/dashboard-sessions.js';
import { RequestPasswordResetCommand } from '#team/application/request-password-reset.js';
import { ResetPasswordCommand } from '#team/application/reset-password.js';
import { SignIn, type SignInOutcome } from '#team/application/sign-in.js';
import { TeamStores } from '#team/infrastructure/team-stores.js';
import { validLinkToken } from '#team/application/credentials.js';
import { PASSWORD_RULES } from '#team/infrastructure/passwords.js';
import type { MemberDoc } from '#team/read-models/member.read-model.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { PageErrorFilter } from '#web/page-errors.js';
import { apiErrorText } from '#web/api-error-messages.js';
import { formatDateTime } from '#web/format.js';
import { addressOf, DASHBOARD_COOKIE, DASHBOARD_PENDING_COOKIE, DashboardPage, pages, userAgentOf } from './dashboard-page.js';
import { CODE_STEP_MS } from '#team/application/sign-in.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';

/** Where a member lands once signed in: enrolment when two factors are required and missing, else the home page (the business) for those who may read reports, else the subscriptions. */
export function landing(role: Role | null | undefined, mustEnrol: boolean): string {
  if (mustEnrol) return '/dashboard/account/two-factor';
  return can(role, 'reports.read') ? '/dashboard/home' : '/dashboard/subscriptions';
}

/**
 * Where the mode switch goes back to: the list (or home page) it was pressed on, with its filters but
 * from the first page (an object of one mode is not in the other: never a detail page), else null.
 */
export function sameListIn(back: string | undefined): string | null {
  if (!back) return null;
  const url = new URL(back, 'http://dashboard.invalid');
  if (url.origin !== 'http://dashboard.invalid' || !/^\/dashboard\/(home|[a-z_]+)$/.test(url.pathname) || /^\/dashboard\/(login|logout|switch|new)$/.test(url.pathname)) return null;
  url.searchParams.delete('starting_after');
  const query = url.searchParams.toString();
  return query ? `${url.pathname}?${query}` : url.pathname;
}

/**
 * Signing in to the dashboard as a member of an account's team: e-mail and password, then the code
 * of the authenticator app when the member has two factors; accepting an invitation (set a password);
 * a forgotten password (an e-mailed single-use link). Nobody signs in with an API key.
 */
@ApiExcludeController()
@Controller('dashboard')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class DashboardAuthController {
  constructor(
    private readonly page: DashboardPage,
    private readonly signIn: SignIn,
    private readonly sessions: DashboardSessions,
    private readonly commands: CommandBus,
    private readonly engine: ProjectionEngine,
    private readonly stores: TeamStores,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Public()
  @Get()
  async root(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.visitor(request);
    // Signed in: the home page (the revenue report) for who may read it, the subscriptions otherwise.
    if (visitor) return reply.redirect(landing(visitor.role, visitor.mustEnrol), 303);
    return this.loginPage(request, reply, {}, null, 200);
  }

  @Public()
  @Post('login')
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const fields = formFields(request);
    const email = (fields.email ?? '').trim();
    const t = this.page.t(request, reply);
    if (!email || !fields.password) return this.loginPage(request, reply, { email }, t('dash.login.missing'), 400);
    const outcome = await this.signIn.withPassword(email, fields.password, { address: addressOf(request), userAgent: userAgentOf(request) });
    return this.answer(request, reply, outcome, { email });
  }

  @Public()
  @Get('login/code')
  async codePage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!(await this.signIn.pendingMember(request.cookies?.[DASHBOARD_PENDING_COOKIE]))) return reply.redirect('/dashboard', 303);
    return this.page.sendPublic(request, reply, 'dash-code', { error: null }, 'dash.code.title', 200);
  }

  @Public()
  @Post('login/code')
  async code(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const pending = request.cookies?.[DASHBOARD_PENDING_COOKIE];
    if (!(await this.signIn.pendingMember(pending))) return reply.redirect('/dashboard', 303);
    const outcome = await this.signIn.withCode(pending, formFields(request).code ?? '', { address: addressOf(request), userAgent: userAgentOf(request) });
    if (outcome.outcome === 'refused') return this.page.sendPublic(request, reply, 'dash-code', { error: this.page.t(request, reply)('dash.code.wrong') }, 'dash.code.title', 401, '/dashboard/login/code');
    return this.answer(request, reply, outcome, {});
  }

  private answer(request: FastifyRequest, reply: FastifyReply, outcome: SignInOutcome, values: Record<string, string>) {
    const t = this.page.t(request, reply);
    switch (outcome.outcome) {
      case 'refused':
        return this.loginPage(request, reply, values, t('dash.login.invalid'), 401);
      case 'locked':
        this.page.clearCookie(reply, DASHBOARD_PENDING_COOKIE);
        return this.loginPage(request, reply, values, t('dash.login.locked', { time: formatDateTime(outcome.until.toISOString(), this.page.locale(request, reply)) }), 429);
      case 'code':
        this.page.setCookie(reply, DASHBOARD_PENDING_COOKIE, outcome.pending, CODE_STEP_MS / 1000);
        return reply.redirect('/dashboard/login/code', 303);
      case 'signed_in':
        this.page.clearCookie(reply, DASHBOARD_PENDING_COOKIE);
        this.page.setSessionCookie(reply, outcome.cookie);
        return reply.redirect(landing(outcome.member.role, outcome.mustEnrol), 303);
    }
  }

  /** The test/live switch: every role may look at both modes; what they may do is the same in each. */
  @Public()
  @Post('switch')
  async switchMode(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'dashboard.read');
    if (!visitor) return reply;
    await this.sessions.setMode(visitor, visitor.mode === 'test' ? 'live' : 'test');
    return reply.redirect(sameListIn(formFields(request).back) ?? landing(visitor.role, false), 303);
  }

  @Public()
  @Post('logout')
  async logout(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    await this.sessions.close(request.cookies?.[DASHBOARD_COOKIE]);
    this.page.clearCookie(reply, DASHBOARD_COOKIE);
    return reply.redirect('/dashboard', 303);
  }

  // --- Invitations -------------------------------------------------------------------------------

  @Public()
  @Get('invitations/:token')
  async invitation(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const link = await validLinkToken(this.stores, token, 'invitation', new Date(this.engineNow()));
    if (!link) return this.invalidLink(request, reply);
    const member = await this.store.get<MemberDoc>('members', link.member);
    if (!member || member.status !== 'invited') return this.invalidLink(request, reply);
    return this.invitationPage(request, reply, token, member, {}, {}, null, 200);
  }

  @Public()
  @Post('invitations/:token')
  async accept(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const link = await validLinkToken(this.stores, token, 'invitation', new Date(this.engineNow()));
    const member = link ? await this.store.get<MemberDoc>('members', link.member) : null;
    if (!link || !member || member.status !== 'invited') return this.invalidLink(request, reply);
    const fields = formFields(request);
    const t = this.page.t(request, reply);
    if ((fields.password ?? '') !== (fields.password_confirmation ?? '')) return this.invitationPage(request, reply, token, member, fields, { password_confirmation: t('dash.password.mismatch') }, null, 400);
    try {
      const accepted = await this.commands.execute(new AcceptInvitationCommand(token, member.email ? null : (fields.email ?? ''), fields.password ?? '', addressOf(request)));
      await this.engine.waitFor(accepted.position);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (error.code === 'link_invalid') return this.invalidLink(request, reply);
      const message = this.errorText(request, reply, error);
      return this.invitationPage(request, reply, token, member, fields, error.param ? { [error.param]: message } : {}, error.param ? null : message, error.status);
    }
    // Signed in at once with the password just set (and the code, when the account requires two factors, next).
    const email = member.email ?? (fields.email ?? '').trim().toLowerCase();
    return this.answer(request, reply, await this.signIn.withPassword(email, fields.password ?? '', { address: addressOf(request), userAgent: userAgentOf(request) }), { email });
  }

  // --- Forgotten password --------------------------------------------------------------------------

  @Public()
  @Get('password/forgot')
  forgotPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    return this.page.sendPublic(request, reply, 'dash-forgot', { sent: false, values: {} }, 'dash.forgot.title', 200);
  }

  @Public()
  @Post('password/forgot')
  async forgot(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const email = (formFields(request).email ?? '').trim();
    // One answer whether or not the e-mail is a member's.
    if (email) await this.commands.execute(new RequestPasswordResetCommand(email, addressOf(request)));
    return this.page.sendPublic(request, reply, 'dash-forgot', { sent: !!email, values: { email } }, 'dash.forgot.title', email ? 200 : 400, '/dashboard/password/forgot');
  }

  @Public()
  @Get('password/reset/:token')
  async resetPage(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!(await validLinkToken(this.stores, token, 'password_reset', new Date(this.engineNow())))) return this.invalidLink(request, reply);
    return this.resetForm(request, reply, token, {}, null, 200);
  }

  @Public()
  @Post('password/reset/:token')
  async reset(@Param('token') token: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!(await validLinkToken(this.stores, token, 'password_reset', new Date(this.engineNow())))) return this.invalidLink(request, reply);
    const fields = formFields(request);
    const t = this.page.t(request, reply);
    if ((fields.password ?? '') !== (fields.password_confirmation ?? '')) return this.resetForm(request, reply, token, { password_confirmation: t('dash.password.mismatch') }, null, 400);
    try {
      const done = await this.commands.execute(new ResetPasswordCommand(token, fields.password ?? '', addressOf(request)));
      await this.engine.waitFor(done.position);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (error.code === 'link_invalid') return this.invalidLink(request, reply);
      const message = this.errorText(request, reply, error);
      return this.resetForm(request, reply, token, error.param ? { [error.param]: message } : {}, error.param ? null : message, error.status);
    }
    // Every session of the member ended with the reset (this browser's too): sign in with the new password.
    this.page.clearCookie(reply, DASHBOARD_COOKIE);
    return this.loginPage(request, reply, {}, null, 200, t('dash.reset.done'));
  }

  // --- Pages -----------------------------------------------------------------------------------------

  private engineNow(): number {
    return this.clock.now().getTime();
  }

  private errorText(request: FastifyRequest, reply: FastifyReply, error: ApiError): string {
    const t = this.page.t(request, reply);
    const key = `dash.error.${error.code}`;
    return t(key, { min: String(PASSWORD_RULES.minLength), max: String(PASSWORD_RULES.maxLength) }) !== key
      ? t(key, { min: String(PASSWORD_RULES.minLength), max: String(PASSWORD_RULES.maxLength) })
      : apiErrorText(error, { t, locale: this.page.locale(request, reply), field: (p) => p });
  }

  private loginPage(request: FastifyRequest, reply: FastifyReply, values: Record<string, string>, error: string | null, status: number, notice: string | null = null) {
    return this.page.sendPublic(request, reply, 'dash-login', { values, error, notice }, 'dash.login.page_title', status, '/dashboard');
  }

  private invitationPage(request: FastifyRequest, reply: FastifyReply, token: string, member: MemberDoc, values: Record<string, string>, errors: Record<string, string>, formError: string | null, status: number) {
    const t = pages.helpers(this.page.locale(request, reply)).t;
    return this.page.sendPublic(request, reply, 'dash-invitation', { token, email: member.email, role: t(`dash.role.${member.role}`), values, errors, formError, minLength: PASSWORD_RULES.minLength }, 'dash.invitation.title', status, `/dashboard/invitations/${token}`);
  }

  private resetForm(request: FastifyRequest, reply: FastifyReply, token: string, errors: Record<string, string>, formError: string | null, status: number) {
    return this.page.sendPublic(request, reply, 'dash-reset', { token, errors, formError, minLength: PASSWORD_RULES.minLength }, 'dash.reset.title', status, `/dashboard/password/reset/${token}`);
  }

  private invalidLink(request: FastifyRequest, reply: FastifyReply) {
    return this.page.sendPublic(request, reply, 'dash-notice', { heading: 'dash.link_invalid.title', body: 'dash.link_invalid.body', link: { href: '/dashboard', text: 'dash.link_invalid.sign_in' } }, 'dash.link_invalid.title', 410, '/dashboard');
  }
}
