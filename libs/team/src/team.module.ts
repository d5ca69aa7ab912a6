import { Module } from '@nestjs/common';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { PortalModule } from '#portal/portal.module.js';
import { loadMasterKey, SecretSealer } from '#shared/sealing.js';
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

/** Where the master key came from: `{ created, path }` (path null: MASTER_KEY); the first start says so. */
export const MASTER_KEY_SOURCE = Symbol('MASTER_KEY_SOURCE');

/**
 * The merchant's team: members, invitations, roles, passwords, two-factor sign-in, dashboard sessions
 * and the security log. The sealer's master key is MASTER_KEY, else `DATA_DIR/master.key` (made on
 * first use).
 */
@Module({
  imports: [PortalModule],
  providers: [
    TeamStores,
    SecurityLog,
    DashboardSessions,
    SignIn,
    EnrolTwoFactor,
    InviteFirstOwner,
    { provide: MASTER_KEY_SOURCE, inject: [CONFIG], useFactory: (config: Config) => loadMasterKey({ env: config.masterKey ?? undefined, dataDir: config.dataDir }) },
    { provide: SecretSealer, inject: [MASTER_KEY_SOURCE], useFactory: (source: ReturnType<typeof loadMasterKey>) => SecretSealer.fromMasterKey(source) },
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
  exports: [MASTER_KEY_SOURCE, TeamStores, SecurityLog, DashboardSessions, SignIn, EnrolTwoFactor, InviteFirstOwner, SecretSealer],
})
export class TeamModule {}
