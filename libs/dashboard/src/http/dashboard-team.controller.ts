import { Controller, Get, Inject, Param, Post, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '#accounts/http/basic-auth.guard.js';
import { READ_STORE } from '#platform/tokens.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { ReadStore, Scalar } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { ApiError } from '#shared/errors.js';
import { ChangeMemberRoleCommand } from '#team/application/change-member-role.js';
import { ChangePasswordCommand } from '#team/application/change-password.js';
import { DashboardSessions } from '#team/application/dashboard-sessions.js';
import { DisableMemberCommand } from '#team/application/disable-member.js';
import { EnableMemberCommand } from '#team/application/enable-member.js';
import { EnrolTwoFactor } from '#team/application/enrol-two-factor.js';
import { type Invitation, InviteMemberCommand } from '#team/application/invite-member.js';
import { RemoveMemberCommand } from '#team/application/remove-member.js';
import { RequireTwoFactorCommand } from '#team/application/require-two-factor.js';
import { RevokeInvitationCommand } from '#team/application/revoke-invitation.js';
import { TransferOwnershipCommand } from '#team/application/transfer-ownership.js';
import { can, isRole, mayAssign, ROLES } from '#team/domain/roles.js';
import { PASSWORD_RULES, verifyPassword } from '#team/infrastructure/passwords.js';
import { type PasswordCredential, TeamStores } from '#team/infrastructure/team-stores.js';
import type { MemberDoc, SecurityLogEntry, TeamDoc } from '#team/read-models/member.read-model.js';
import { apiErrorText } from '#web/api-error-messages.js';
import { CsrfGuard } from '#web/csrf.guard.js';
import { formFields } from '#web/form.js';
import { formatDateTime } from '#web/format.js';
import type { Locale, Translate } from '#web/i18n.js';
import { PageError, PageErrorFilter } from '#web/page-errors.js';
import { CSV_BOM, csvLine, csvSeparator, sendCsv } from './csv.js';
import { addressOf, DASHBOARD_COOKIE, DashboardPage, type DashboardVisitor, pages, userAgentOf } from './dashboard-page.js';

/** The pending two-factor enrolment's credential id (not a secret: `start` and `confirm` check it is the visitor's and unconfirmed). */
const ENROL_COOKIE = 'dashboard_enrol';
const ENROL_COOKIE_SECONDS = 15 * 60;
/** Lines of the security log per page. */
const LOG_PAGE = 50;
/** Lines read at a time for the CSV export (memory stays flat whatever the log's length). */
const CSV_PAGE = 500;

const TEAM_NOTICES = ['invited', 'revoked', 'role_changed', 'disabled', 'enabled', 'removed', 'transferred', 'two_factor_required', 'two_factor_not_required'] as const;
const ACCOUNT_NOTICES = ['password_changed', 'two_factor_enabled', 'two_factor_disabled', 'session_ended', 'others_ended'] as const;

type MemberAction = 'role' | 'disable' | 'enable' | 'remove' | 'revoke';

/** A refusal's message in the page's language: the team's own words first, then the sign-in's, then the API's. */
export function teamErrorText(t: Translate, locale: Locale, error: ApiError): string {
  const params = { min: String(PASSWORD_RULES.minLength), max: String(PASSWORD_RULES.maxLength) };
  for (const key of [`dash.team.error.${error.code}.${error.param}`, `dash.team.error.${error.code}`, `dash.error.${error.code}`]) {
    const words = t(key, params);
    if (words !== key) return words;
  }
  return apiErrorText(error, { t, locale, field: (p) => p });
}

/** A security log line in words (one message per event type; an unknown type is named by its code). */
export function describeLogEntry(t: Translate, locale: Locale, entry: SecurityLogEntry): string {
  const d = entry.detail ?? {};
  const words = (prefix: string, value: unknown) => {
    const key = `${prefix}.${String(value)}`;
    const found = t(key);
    return found === key ? String(value ?? '') : found;
  };
  const role = (value: unknown) => (isRole(value) ? t(`dash.role.${value}`) : String(value ?? ''));
  const params: Record<string, string> = {
    role: role(d.role),
    from: role(d.previous_role),
    to: role(d.role),
    reason: words('dash.log.reason', d.reason),
    method: words('dash.log.method', d.reason),
    time: formatDateTime(typeof d.locked_until === 'string' ? d.locked_until : null, locale),
    key: String(d.key_id ?? ''),
    new_key: String(d.new_key_id ?? ''),
    name: String(d.name ?? ''),
    mode: words('dash.mode', d.mode),
  };
  const key = entry.type === 'team.two_factor_requirement_set' ? `dash.log.event.${entry.type}.${d.required === true ? 'on' : 'off'}` : `dash.log.event.${entry.type}`;
  const text = t(key, params);
  return text === key ? entry.type : text;
}

/**
 * The team's pages: the team (members, invitations, roles; inviting and changing members with
 * `team.manage`, transferring ownership, requiring two-factor sign-in), the member's own account
 * (password, two-factor enrolment, open sessions) and the security log with its CSV export. Every
 * post checks its permission on the server (a forged one is the 403 page and changes nothing) and
 * runs the team's command with the member as actor.
 */
@ApiExcludeController()
@Controller('dashboard')
@UseFilters(PageErrorFilter)
@UseGuards(CsrfGuard)
export class DashboardTeamController {
  constructor(
    private readonly page: DashboardPage,
    private readonly commands: CommandBus,
    private readonly engine: ProjectionEngine,
    private readonly sessions: DashboardSessions,
    private readonly enrol: EnrolTwoFactor,
    private readonly stores: TeamStores,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  // --- The team ------------------------------------------------------------------------------------

  @Public()
  @Get('team')
  async team(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'team.read');
    if (!visitor) return reply;
    const done = (request.query as Record<string, unknown>)?.done;
    return this.teamPage(request, reply, visitor, { done: (TEAM_NOTICES as readonly unknown[]).includes(done) ? String(done) : null }, 200);
  }

  @Public()
  @Post('team/invite')
  async invite(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'team.manage');
    if (!visitor) return reply;
    const fields = formFields(request);
    const email = (fields.email ?? '').trim();
    const values = { email, role: fields.role ?? '' };
    if (!isRole(fields.role)) return this.teamPage(request, reply, visitor, { error: this.words(request, reply, 'dash.team.error.parameter_invalid.role'), values }, 400);
    return this.run(request, reply, visitor, 'invited', values, async () => (await this.commands.execute<InviteMemberCommand, Invitation>(new InviteMemberCommand(this.page.staffOf(visitor, request), email, fields.role as never))).position);
  }

  @Public()
  @Post('team/transfer')
  async transfer(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'ownership.transfer');
    if (!visitor) return reply;
    const to = await this.memberOf(visitor, formFields(request).member ?? '');
    return this.run(request, reply, visitor, 'transferred', {}, async () => (await this.commands.execute(new TransferOwnershipCommand(this.page.staffOf(visitor, request), to.id))).position, async () => {
      // The owner who transferred is an admin now, and a role change ends the member's sessions: this
      // browser, where they did it, gets a new session (their other sessions stay ended).
      await this.reopen(request, reply, visitor);
    });
  }

  @Public()
  @Post('team/two-factor')
  async requireTwoFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'account.settings');
    if (!visitor) return reply;
    const required = formFields(request).required === 'true';
    return this.run(request, reply, visitor, required ? 'two_factor_required' : 'two_factor_not_required', {}, async () => (await this.commands.execute(new RequireTwoFactorCommand(this.page.staffOf(visitor, request), required))).position);
  }

  @Public()
  @Post('team/:member/:action')
  async memberAction(@Param('member') memberId: string, @Param('action') action: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!['role', 'disable', 'enable', 'remove', 'revoke'].includes(action)) throw new PageError(404, 'not_found');
    const visitor = await this.page.require(request, reply, 'team.manage');
    if (!visitor) return reply;
    const member = await this.memberOf(visitor, memberId);
    const staff = this.page.staffOf(visitor, request);
    const role = formFields(request).role;
    const run = {
      role: () => {
        if (!isRole(role)) throw new ApiError(400, 'invalid_request_error', 'parameter_invalid', 'role must be a role', 'role');
        return this.commands.execute(new ChangeMemberRoleCommand(staff, member.id, role));
      },
      disable: () => this.commands.execute(new DisableMemberCommand(staff, member.id)),
      enable: () => this.commands.execute(new EnableMemberCommand(staff, member.id)),
      remove: () => this.commands.execute(new RemoveMemberCommand(staff, member.id)),
      revoke: () => this.commands.execute(new RevokeInvitationCommand(staff, member.id)),
    }[action as MemberAction];
    const notice = { role: 'role_changed', disable: 'disabled', enable: 'enabled', remove: 'removed', revoke: 'revoked' }[action as MemberAction];
    return this.run(request, reply, visitor, notice, {}, async () => ((await run()) as { position: string | null }).position, member.id === visitor.memberId && action === 'role' ? () => this.reopen(request, reply, visitor) : undefined);
  }

  /** Runs a team command, waits for the read models, and goes back to the team page with a notice; a refusal is shown on the page. */
  private async run(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, notice: string, values: Record<string, string>, command: () => Promise<string | null>, after?: () => Promise<void>) {
    try {
      await this.engine.waitFor(await command());
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (error.status === 404) throw new PageError(404, 'not_found');
      return this.teamPage(request, reply, visitor, { error: teamErrorText(this.page.t(request, reply), this.page.locale(request, reply), error), values }, error.status);
    }
    if (after) await after();
    return reply.redirect(`/dashboard/team?done=${notice}`, 303);
  }

  /** A member of the visitor's account, or the 404 page (another account's member is as unknown as a made-up one). */
  private async memberOf(visitor: DashboardVisitor, id: string): Promise<MemberDoc> {
    const member = id ? await this.store.get<MemberDoc>('members', id) : null;
    if (!member || member.account_id !== visitor.accountId) throw new PageError(404, 'not_found');
    return member;
  }

  private async teamPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, state: { done?: string | null; error?: string | null; values?: Record<string, string> }, status: number) {
    const locale = this.page.locale(request, reply);
    const t = pages.helpers(locale).t;
    const all = await this.store.find<MemberDoc>('members', { where: { account_id: visitor.accountId }, orderBy: { field: 'invited_at', direction: 'asc' }, limit: 1000 });
    const team = await this.store.get<TeamDoc>('teams', visitor.accountId);
    const manage = can(visitor.role, 'team.manage');
    const now = this.clock.now().getTime();
    const assignable = ROLES.filter((r) => manage && mayAssign(visitor.role, r));
    const rowOf = (m: MemberDoc) => ({
      id: m.id,
      email: m.email,
      role: m.role,
      roleWords: t(`dash.role.${m.role}`),
      status: m.status,
      statusWords: t(`dash.team.status.${m.status}`),
      joined: m.joined_at,
      invited: m.invited_at,
      expires: m.invitation_expires_at,
      expired: m.invitation_expires_at ? Date.parse(m.invitation_expires_at) <= now : false,
      twoFactor: !!m.totp_credential,
      self: m.id === visitor.memberId,
      // Only members the visitor may change (an owner only by an owner); never the visitor themself here.
      manageable: manage && m.id !== visitor.memberId && mayAssign(visitor.role, m.role),
    });
    const members = all.filter((m) => m.status !== 'invited').map(rowOf);
    const invitations = all.filter((m) => m.status === 'invited').map(rowOf);
    return this.page.send(
      request,
      reply,
      visitor,
      'dash-team',
      {
        members,
        invitations,
        roles: assignable.map((r) => ({ value: r, words: t(`dash.role.${r}`) })),
        transferTo: can(visitor.role, 'ownership.transfer') ? members.filter((m) => m.status === 'active' && !m.self) : [],
        requireTwoFactor: team?.require_two_factor === true,
        done: state.done ?? null,
        error: state.error ?? null,
        values: state.values ?? {},
        locale,
      },
      'dash.team.title',
      {},
      status,
      '/dashboard/team',
    );
  }

  // --- The member's own account ------------------------------------------------------------------------

  @Public()
  @Get('account')
  async account(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    const done = (request.query as Record<string, unknown>)?.done;
    return this.accountPage(request, reply, visitor, { done: (ACCOUNT_NOTICES as readonly unknown[]).includes(done) ? String(done) : null }, 200);
  }

  @Public()
  @Post('account/password')
  async changePassword(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    const fields = formFields(request);
    const t = this.page.t(request, reply);
    if ((fields.password ?? '') !== (fields.password_confirmation ?? '')) return this.accountPage(request, reply, visitor, { errors: { password_confirmation: t('dash.password.mismatch') } }, 400);
    try {
      const changed = await this.commands.execute<ChangePasswordCommand, { position: string | null }>(new ChangePasswordCommand(this.page.staffOf(visitor, request), fields.current_password ?? '', fields.password ?? ''));
      await this.engine.waitFor(changed.position);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      const message = teamErrorText(t, this.page.locale(request, reply), error);
      const param = error.param === 'current_password' || error.param === 'password' ? error.param : null;
      return this.accountPage(request, reply, visitor, param ? { errors: { [param]: message } } : { error: message }, error.status);
    }
    // A new password ends every session of the member (this one too): this browser gets a new one.
    await this.reopen(request, reply, visitor);
    return reply.redirect('/dashboard/account?done=password_changed', 303);
  }

  @Public()
  @Post('account/two-factor/disable')
  async disableTwoFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    const t = this.page.t(request, reply);
    const member = await this.store.get<MemberDoc>('members', visitor.memberId);
    const credential = await this.stores.credential<PasswordCredential>(member?.password_credential);
    if (!credential || !(await verifyPassword(credential.hash, formFields(request).current_password ?? ''))) {
      return this.accountPage(request, reply, visitor, { errors: { disable_password: t('dash.team.error.password_incorrect') } }, 400);
    }
    try {
      await this.enrol.disable(this.page.staffOf(visitor, request), visitor.memberId);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      const message = error.code === 'invalid_state' ? t('dash.account.two_factor.required_by_account') : teamErrorText(t, this.page.locale(request, reply), error);
      return this.accountPage(request, reply, visitor, { error: message }, error.status);
    }
    return reply.redirect('/dashboard/account?done=two_factor_disabled', 303);
  }

  @Public()
  @Post('account/sessions/end')
  async endSession(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    const key = formFields(request).session ?? '';
    if (!/^[0-9a-f]{64}$/.test(key)) throw new PageError(400, 'bad_request');
    await this.sessions.end(visitor, { key });
    if (key === visitor.sessionKey) {
      this.page.clearCookie(reply, DASHBOARD_COOKIE);
      return reply.redirect('/dashboard', 303);
    }
    return reply.redirect('/dashboard/account?done=session_ended', 303);
  }

  @Public()
  @Post('account/sessions/end-others')
  async endOtherSessions(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    await this.sessions.end(visitor, { allBut: visitor.sessionKey });
    return reply.redirect('/dashboard/account?done=others_ended', 303);
  }

  /** A new session for this browser, right after the member's own action ended their sessions (password, ownership). */
  private async reopen(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor) {
    const member = await this.store.get<MemberDoc>('members', visitor.memberId);
    if (!member || member.status !== 'active') return;
    const cookie = await this.sessions.open(member, { mode: visitor.mode, address: addressOf(request), userAgent: userAgentOf(request), mustEnrol: visitor.mustEnrol });
    this.page.setSessionCookie(reply, cookie);
  }

  private async accountPage(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, state: { done?: string | null; error?: string | null; errors?: Record<string, string> }, status: number) {
    const locale = this.page.locale(request, reply);
    const member = await this.store.get<MemberDoc>('members', visitor.memberId);
    const team = await this.store.get<TeamDoc>('teams', visitor.accountId);
    const open = (await this.sessions.list(visitor.memberId)).filter((s) => s.epoch === member?.session_epoch);
    return this.page.send(
      request,
      reply,
      visitor,
      'dash-account',
      {
        account: { email: visitor.email, role: visitor.role, twoFactor: !!member?.totp_credential, required: team?.require_two_factor === true, mustEnrol: visitor.mustEnrol },
        sessions: open.map((s) => ({ key: s.id, created: s.created_at, lastSeen: s.last_seen_at, address: s.address, browser: s.user_agent, current: s.id === visitor.sessionKey, mode: s.mode })),
        done: state.done ?? null,
        error: state.error ?? null,
        errors: state.errors ?? {},
        minLength: PASSWORD_RULES.minLength,
        locale,
      },
      'dash.account.title',
      {},
      status,
      '/dashboard/account',
    );
  }

  // --- Two-factor enrolment ----------------------------------------------------------------------

  @Public()
  @Get('account/two-factor')
  async enrolPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    return this.enrolment(request, reply, visitor, null, 200);
  }

  @Public()
  @Post('account/two-factor')
  async confirmEnrolment(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, null);
    if (!visitor) return reply;
    const credential = request.cookies?.[ENROL_COOKIE];
    const member = await this.store.get<MemberDoc>('members', visitor.memberId);
    if (!credential || member?.totp_credential) return reply.redirect('/dashboard/account/two-factor', 303);
    let codes: string[];
    try {
      codes = await this.enrol.confirm(this.page.staffOf(visitor, request), credential, formFields(request).code ?? '');
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      return this.enrolment(request, reply, visitor, this.page.t(request, reply)('dash.twofa.wrong_code'), 400);
    }
    this.page.clearCookie(reply, ENROL_COOKIE);
    if (visitor.mustEnrol) await this.sessions.enrolled(visitor);
    // Shown once, on the page that answers the form (not cached; never redirected with).
    return this.page.send(request, reply, { ...visitor, mustEnrol: false }, 'dash-twofa-codes', { codes, locale: this.page.locale(request, reply) }, 'dash.twofa.codes.title', {}, 200, '/dashboard/account');
  }

  private async enrolment(request: FastifyRequest, reply: FastifyReply, visitor: DashboardVisitor, error: string | null, status: number) {
    const locale = this.page.locale(request, reply);
    const t = pages.helpers(locale).t;
    const member = await this.store.get<MemberDoc>('members', visitor.memberId);
    if (member?.totp_credential) {
      return this.page.send(request, reply, visitor, 'dash-twofa', { enrolled: true, locale }, 'dash.twofa.title', {}, 200, '/dashboard/account/two-factor');
    }
    const accountName = (await this.store.get<{ name?: string }>('accounts', visitor.accountId))?.name ?? t('dash.brand');
    const started = await this.enrol.start(this.page.staffOf(visitor, request), visitor.email, accountName, request.cookies?.[ENROL_COOKIE] ?? null);
    this.page.setCookie(reply, ENROL_COOKIE, started.credential, ENROL_COOKIE_SECONDS);
    // The QR code's accessible name in the page's language (qrSvg's default is English).
    const qr = started.qr.replace(/aria-label="[^"]*"/, `aria-label="${t('dash.twofa.qr_label')}"`).replace(/<title>[^<]*<\/title>/, `<title>${t('dash.twofa.qr_label')}</title>`);
    const grouped = started.secret.replace(/(.{4})(?=.)/g, '$1 ');
    return this.page.send(request, reply, visitor, 'dash-twofa', { enrolled: false, qr, secret: grouped, error, mustEnrol: visitor.mustEnrol, locale }, 'dash.twofa.title', {}, status, '/dashboard/account/two-factor');
  }

  // --- The security log --------------------------------------------------------------------------

  @Public()
  @Get('security-log')
  async securityLog(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'security_log.read');
    if (!visitor) return reply;
    const locale = this.page.locale(request, reply);
    const t = pages.helpers(locale).t;
    const cursor = (request.query as Record<string, unknown>)?.after;
    const after = typeof cursor === 'string' ? await this.cursorOf(visitor, cursor) : undefined;
    const found = await this.store.find<SecurityLogEntry>('security_log', { where: { account_id: visitor.accountId }, orderBy: { field: '_position', direction: 'desc' }, ...(after ? { after } : {}), limit: LOG_PAGE + 1 });
    const entries = found.slice(0, LOG_PAGE);
    const emails = await this.emailsOf(entries);
    const rows = entries.map((e) => this.lineOf(t, locale, e, emails));
    const next = found.length > LOG_PAGE ? `/dashboard/security-log?after=${encodeURIComponent(entries[entries.length - 1].id)}` : null;
    return this.page.send(request, reply, visitor, 'dash-security-log', { rows, next, exportable: can(visitor.role, 'data.export'), locale }, 'dash.log.title', {}, 200);
  }

  @Public()
  @Get('security-log.csv')
  async securityLogCsv(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const visitor = await this.page.require(request, reply, 'security_log.read');
    if (!visitor) return reply;
    this.page.authorize(visitor, 'data.export');
    const locale = this.page.locale(request, reply);
    const t = pages.helpers(locale).t;
    const sep = csvSeparator(locale);
    const line = (cells: string[]) => csvLine(cells, sep);
    const store = this.store;
    const self = this;
    const accountId = visitor.accountId;
    async function* lines(): AsyncGenerator<string> {
      yield `${CSV_BOM}${line(['at', 'time', 'event', 'description', 'member', 'actor', 'address'].map((c) => t(`dash.log.csv.${c}`)))}`;
      let after: { value: Scalar; id: string } | undefined;
      for (;;) {
        const batch = await store.find<SecurityLogEntry & { _position: string }>('security_log', { where: { account_id: accountId }, orderBy: { field: '_position', direction: 'desc' }, ...(after ? { after } : {}), limit: CSV_PAGE });
        if (batch.length === 0) return;
        const emails = await self.emailsOf(batch);
        let chunk = '';
        for (const e of batch) {
          const l = self.lineOf(t, locale, e, emails);
          chunk += line([e.at, l.time, e.type, l.what, l.member, l.actor, l.address]);
        }
        yield chunk;
        if (batch.length < CSV_PAGE) return;
        const last = batch[batch.length - 1];
        after = { value: last._position, id: last.id };
      }
    }
    const day = this.clock.now().toISOString().slice(0, 10);
    return sendCsv(reply, `security-log-${day}.csv`, lines());
  }

  /** The keyset position of a line of the visitor's log (the page's `after`), or none. */
  private async cursorOf(visitor: DashboardVisitor, id: string): Promise<{ value: Scalar; id: string } | undefined> {
    const doc = await this.store.get<SecurityLogEntry & { _position?: string }>('security_log', id);
    return doc && doc.account_id === visitor.accountId && typeof doc._position === 'string' ? { value: doc._position, id: doc.id } : undefined;
  }

  /** E-mails of the members a page of lines names (a removed member has none left: the line's own e-mail, else the id). */
  private async emailsOf(entries: SecurityLogEntry[]): Promise<Map<string, string>> {
    const ids = [...new Set(entries.flatMap((e) => [e.member, e.actor]).filter((v): v is string => typeof v === 'string'))];
    const docs = ids.length > 0 ? await this.store.getMany<MemberDoc>('members', ids) : new Map<string, MemberDoc>();
    // A removed member's e-mail is still on the lines that name them (team events carry it).
    const fromLines = entries.filter((e) => e.member && e.email).map((e) => [e.member as string, e.email as string] as const);
    return new Map([...fromLines, ...[...docs].filter(([, m]) => !!m.email).map(([id, m]) => [id, m.email as string] as const)]);
  }

  private lineOf(t: Translate, locale: Locale, e: SecurityLogEntry, emails: Map<string, string>) {
    const member = (e.member && emails.get(e.member)) || e.email || e.member || '';
    // No member acted: a sign-in attempt acts for itself; anything else was the CLI or the service.
    const actor = e.actor ? (emails.get(e.actor) ?? e.actor) : e.type.startsWith('security.') ? '' : t('dash.log.actor.system');
    return { id: e.id, at: e.at, time: formatDateTime(e.at, locale), type: e.type, what: describeLogEntry(t, locale, e), member, actor, address: e.address ?? '' };
  }

  private words(request: FastifyRequest, reply: FastifyReply, key: string): string {
    return this.page.t(request, reply)(key);
  }
}
