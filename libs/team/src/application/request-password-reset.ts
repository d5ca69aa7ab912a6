import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { Config } from '#platform/config.js';
import { CONFIG, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { MAIL, type MailPort } from '#mail/mail.port.js';
import { PASSWORD_RESET_TTL_MS } from '../domain/team/team.commands.js';
import { newLinkToken, sha256Hex } from '../infrastructure/tokens.js';
import { TeamStores } from '../infrastructure/team-stores.js';
import type { MemberDoc } from '../read-models/member.read-model.js';
import { SecurityLog } from './security-log.js';
import { executeTeam, staffContext } from './staff-context.js';
import { passwordResetMail } from './team-mail.js';

export class RequestPasswordResetCommand {
  constructor(
    readonly email: string,
    readonly address: string | null,
  ) {}
}

/**
 * "Forgot my password": when the e-mail is an active member's, a single-use link valid one hour is
 * e-mailed. The caller always gets the same answer (nothing tells whether the e-mail is a member's).
 */
@CommandHandler(RequestPasswordResetCommand)
export class RequestPasswordResetHandler implements ICommandHandler<RequestPasswordResetCommand, void> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly stores: TeamStores,
    private readonly log: SecurityLog,
    @Inject(MAIL) private readonly mail: MailPort,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  async execute({ email: input, address }: RequestPasswordResetCommand): Promise<void> {
    const email = String(input ?? '').trim().toLowerCase();
    if (!email) return;
    const member = (await this.store.find<MemberDoc>('members', { where: { email, status: 'active' }, orderBy: { field: 'invited_at', direction: 'asc' }, limit: 1 }))[0];
    if (!member) {
      await this.log.record(null, 'security.password_reset_requested', { email, address, reason: 'unknown_email' });
      return;
    }
    const token = newLinkToken('rst');
    const expiresAt = new Date(this.executor.now().getTime() + PASSWORD_RESET_TTL_MS);
    await this.stores.saveToken({ id: token.id, account_id: member.account_id, member: member.id, kind: 'password_reset', hash: sha256Hex(token.secret), expires_at: expiresAt.toISOString() });
    await executeTeam(this.executor, staffContext({ accountId: member.account_id, member: null, address }), { type: 'RequestPasswordReset', member: member.id, reset: token.id, expiresAt });
    await this.mail.send(passwordResetMail({ accountId: member.account_id, to: email, url: `${this.config.dashboardUrl}/password/reset/${token.token}`, member: member.id }));
  }
}
