import type { Role } from '../roles.js';

export type MemberStatus = 'invited' | 'active' | 'disabled';

export interface MemberState {
  id: string;
  email: string | null;
  role: Role;
  status: MemberStatus;
  /** The pending invitation (status invited). */
  invitation: { id: string; expires_at: string } | null;
  /** The current password's credential. */
  password: string | null;
  /** The TOTP credential and the recovery codes used (by index). */
  two_factor: { credential: string; used: number[] } | null;
  /** Password resets requested and not used. */
  resets: Record<string, { expires_at: string }>;
  /** Moves on each time the member's open sessions must end. */
  session_epoch: number;
}

export interface TeamState {
  members: Record<string, MemberState>;
  require_two_factor: boolean;
}

export const initialTeamState: TeamState = { members: {}, require_two_factor: false };

export const teamStream = (accountId: string) => `team-${accountId}`;

export const activeOwners = (state: TeamState) => Object.values(state.members).filter((m) => m.role === 'owner' && m.status === 'active');
export const memberByInvitation = (state: TeamState, invitation: string) => Object.values(state.members).find((m) => m.invitation?.id === invitation) ?? null;
export const memberByReset = (state: TeamState, reset: string) => Object.values(state.members).find((m) => reset in m.resets) ?? null;
export const memberByEmail = (state: TeamState, email: string) => Object.values(state.members).find((m) => m.email === email) ?? null;
