import { Module } from '@nestjs/common';
import { MASTER_KEY_SOURCE, SealingModule } from '#platform/sealing.module.js';
import { PortalModule } from '#portal/portal.module.js';
import { AcceptInvitationHandler } from './application/accept-invitation.js';
import { ChangeMemberRoleHandler } from './application/change-member-role.js';
import { ChangePasswordHandler } from './application/change-password.js';
import { DashboardSessions } from './application/dashboard-sessions.js';
import { DisableMemberHandler } from './application/disable-member.js';
import { EnableMemberHandler } from './application/enable-member.js';
import { EnrolTwoFactor } from './application/enrol-two-factor.js';
import { InviteFirstOwner } from './application/invite-first-owner.js';
import { InviteMemberHandler } from './application/invite-member.js';
import { RemoveMemberHandler } from './application/remove-member.js';
import { RequestPasswordResetHandler } from './application/request-password-reset.js';
import { RequireTwoFactorHandler } from './application/require-two-factor.js';
import { ResetPasswordHandler } from './application/reset-password.js';
import { RevokeInvitationHandler } from './application/revoke-invitation.js';
import { SecurityLog } from './application/security-log.js';
import { SignIn } from './application/sign-in.js';
import { TransferOwnershipHandler } from './application/transfer-ownership.js';
import { TeamStores } from './infrastructure/team-stores.js';

/** Where the master key came from (now libs/platform's SealingModule, which this module brings in). */
export { MASTER_KEY_SOURCE };

/**
 * The merchant's team: members, invitations, roles, passwords, two-factor sign-in, dashboard sessions
 * and the security log. Two-factor secrets are sealed by the SealingModule's sealer (MASTER_KEY, else
 * `KEYS_DIR/master.key`, made on the first start with no sealed secret).
 */
@Module({
  imports: [SealingModule, PortalModule],
  providers: [
    TeamStores,
    SecurityLog,
    DashboardSessions,
    SignIn,
    EnrolTwoFactor,
    InviteFirstOwner,
    InviteMemberHandler,
    AcceptInvitationHandler,
    RevokeInvitationHandler,
    ChangeMemberRoleHandler,
    DisableMemberHandler,
    EnableMemberHandler,
    RemoveMemberHandler,
    TransferOwnershipHandler,
    RequireTwoFactorHandler,
    RequestPasswordResetHandler,
    ResetPasswordHandler,
    ChangePasswordHandler,
  ],
  exports: [TeamStores, SecurityLog, DashboardSessions, SignIn, EnrolTwoFactor, InviteFirstOwner],
})
export class TeamModule {}
