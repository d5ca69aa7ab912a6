import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { Config } from '#platform/config.js';
import { CONFIG, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { MAIL, type MailPort } from '#mail/mail.port.js';
import { newId } from '#shared/ids.js';
import type { Role } from '../domain/roles.js';
import { INVITATION_TTL_MS } from '../domain/team/team.commands.js';
import { newLinkToken, sha256Hex } from '../infrastructure/tokens.js';
import { TeamStores } from '../infrastructure/team-stores.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';
import { invitationMail } from './team-mail.js';

export class InviteMemberCommand {
  constructor(
    readonly staff: Staff,
    readonly email: string | null,
    readonly role: Role,
  ) {}
}

export interface Invitation {
  member: string;
  /** The single-use link (shown to the CLI and at the first start; e-mailed otherwise). */
  url: string;
  expires_at: string;
  position: string | null;
}

/**
 * Invites a member: the team decider records the invitation (`member.invited`), the link's secret is
 * kept hashed, and the link is e-mailed through the mail port (when the e-mail is known). The link
 * works once, for 7 days.
 */
@CommandHandler(InviteMemberCommand)
export class InviteMemberHandler implements ICommandHandler<InviteMemberCommand, Invitation> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly stores: TeamStores,
    @Inject(MAIL) private readonly mail: MailPort,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  async execute({ staff, email, role }: InviteMemberCommand): Promise<Invitation> {
    const member = newId('mem');
    const token = newLinkToken('invite');
    const expiresAt = new Date(this.executor.now().getTime() + INVITATION_TTL_MS);
    // The token first: a link whose invitation was refused leads nowhere (the decider knows no such invitation).
    await this.stores.saveToken({ id: token.id, account_id: staff.accountId, member, kind: 'invitation', hash: sha256Hex(token.secret), expires_at: expiresAt.toISOString() });
    const result = await executeTeam(this.executor, staffContext(staff), { type: 'InviteMember', by: staff.member, member, invitation: token.id, email, role, expiresAt });
    const url = `${this.config.dashboardUrl}/invitations/${token.token}`;
    const to = email?.trim().toLowerCase();
    if (to) {
      const account = await this.store.get<{ name?: string }>('accounts', staff.accountId);
      await this.mail.send(invitationMail({ accountId: staff.accountId, accountName: account?.name ?? 'Billing', to, role, url, expiresAt, member }));
    }
    return { member, url, expires_at: expiresAt.toISOString(), position: result.position };
  }
}
