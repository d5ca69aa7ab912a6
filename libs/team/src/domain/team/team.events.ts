import type { DomainEvent } from '#shared/decider.js';
import type { Role } from '../roles.js';

/**
 * The team of an account (stream `team-<acct>`). Internal events: never in the `evt_` feed nor in
 * webhooks. They name credentials (`cred_…`), invitations (`invite_…`) and resets (`rst_…`) by id;
 * no password, hash, code, token or secret is ever in them (those live in the credential store).
 * `by` is the member who acted, null for the CLI or the service itself. `email` is the member's at the
 * time (the security log reads its lines without the member, who may be removed since).
 */
export type MemberInvited = DomainEvent<
  'member.invited',
  { account_id: string; member: string; invitation: string; email: string | null; role: Role; expires_at: string; invited_at: string; by: string | null }
>;
export type MemberInvitationRevoked = DomainEvent<'member.invitation_revoked', { account_id: string; member: string; email: string | null; invitation: string; revoked_at: string; by: string | null }>;
export type MemberJoined = DomainEvent<'member.joined', { account_id: string; member: string; invitation: string; email: string; role: Role; credential: string; joined_at: string }>;
export type MemberRoleChanged = DomainEvent<'member.role_changed', { account_id: string; member: string; email: string | null; role: Role; previous_role: Role; changed_at: string; by: string | null }>;
export type MemberDisabled = DomainEvent<'member.disabled', { account_id: string; member: string; email: string | null; disabled_at: string; by: string | null }>;
export type MemberEnabled = DomainEvent<'member.enabled', { account_id: string; member: string; email: string | null; enabled_at: string; by: string | null }>;
export type MemberRemoved = DomainEvent<'member.removed', { account_id: string; member: string; email: string | null; role: Role; removed_at: string; by: string | null }>;
export type MemberPasswordResetRequested = DomainEvent<'member.password_reset_requested', { account_id: string; member: string; email: string | null; reset: string; expires_at: string; requested_at: string }>;
export type MemberPasswordReset = DomainEvent<'member.password_reset', { account_id: string; member: string; email: string | null; reset: string; credential: string; reset_at: string }>;
export type MemberPasswordChanged = DomainEvent<'member.password_changed', { account_id: string; member: string; email: string | null; credential: string; changed_at: string }>;
export type MemberTwoFactorEnabled = DomainEvent<'member.two_factor_enabled', { account_id: string; member: string; email: string | null; credential: string; enabled_at: string }>;
export type MemberTwoFactorDisabled = DomainEvent<'member.two_factor_disabled', { account_id: string; member: string; email: string | null; disabled_at: string; by: string | null }>;
export type MemberRecoveryCodeUsed = DomainEvent<'member.recovery_code_used', { account_id: string; member: string; email: string | null; credential: string; index: number; used_at: string }>;
export type TeamTwoFactorRequirementSet = DomainEvent<'team.two_factor_requirement_set', { account_id: string; required: boolean; set_at: string; by: string | null }>;

export type TeamEvent =
  | MemberInvited
  | MemberInvitationRevoked
  | MemberJoined
  | MemberRoleChanged
  | MemberDisabled
  | MemberEnabled
  | MemberRemoved
  | MemberPasswordResetRequested
  | MemberPasswordReset
  | MemberPasswordChanged
  | MemberTwoFactorEnabled
  | MemberTwoFactorDisabled
  | MemberRecoveryCodeUsed
  | TeamTwoFactorRequirementSet;

export const TEAM_EVENT_TYPES: readonly TeamEvent['type'][] = [
  'member.invited',
  'member.invitation_revoked',
  'member.joined',
  'member.role_changed',
  'member.disabled',
  'member.enabled',
  'member.removed',
  'member.password_reset_requested',
  'member.password_reset',
  'member.password_changed',
  'member.two_factor_enabled',
  'member.two_factor_disabled',
  'member.recovery_code_used',
  'team.two_factor_requirement_set',
];

/** Events after which a member's open sessions end (their session epoch moves on). */
export const ENDS_SESSIONS: ReadonlySet<string> = new Set(['member.role_changed', 'member.disabled', 'member.removed', 'member.password_reset', 'member.password_changed']);
