import type { Role } from '../roles.js';

/** `by`: the member who acts (null: the CLI or the service itself, e.g. the first owner's invitation). */
interface Base {
  accountId: string;
  now: Date;
}
interface ByMember {
  by: string | null;
}

export type TeamCommand =
  | (Base & ByMember & { type: 'InviteMember'; member: string; invitation: string; email: string | null; role: Role; expiresAt: Date })
  | (Base & ByMember & { type: 'RevokeInvitation'; member: string })
  | (Base & { type: 'AcceptInvitation'; invitation: string; email: string | null; credential: string })
  | (Base & ByMember & { type: 'ChangeRole'; member: string; role: Role })
  | (Base & ByMember & { type: 'TransferOwnership'; to: string })
  | (Base & ByMember & { type: 'DisableMember'; member: string })
  | (Base & ByMember & { type: 'EnableMember'; member: string })
  | (Base & ByMember & { type: 'RemoveMember'; member: string })
  | (Base & { type: 'RequestPasswordReset'; member: string; reset: string; expiresAt: Date })
  | (Base & { type: 'ResetPassword'; reset: string; credential: string })
  | (Base & { type: 'ChangePassword'; member: string; credential: string })
  | (Base & { type: 'EnableTwoFactor'; member: string; credential: string })
  | (Base & ByMember & { type: 'DisableTwoFactor'; member: string })
  | (Base & { type: 'UseRecoveryCode'; member: string; credential: string; index: number })
  | (Base & ByMember & { type: 'RequireTwoFactor'; required: boolean });

/** How long an invitation link works (docs/team.md). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a password reset link works. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
