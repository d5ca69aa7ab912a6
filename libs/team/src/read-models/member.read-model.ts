import type { Role } from '../domain/roles.js';
import type { MemberStatus } from '../domain/team/team.state.js';

/** A member of an account's team as the dashboard and sign-in read it (collection `members`). */
export interface MemberDoc {
  id: string;
  account_id: string;
  /** Lower case; null only for the first owner's invitation until it is accepted. */
  email: string | null;
  role: Role;
  status: MemberStatus;
  invited_at: string;
  invited_by: string | null;
  /** The pending invitation's id and expiry (status invited). */
  invitation: string | null;
  invitation_expires_at: string | null;
  joined_at: string | null;
  /** Credential ids (never the hash, which is in the credential store). */
  password_credential: string | null;
  totp_credential: string | null;
  recovery_codes_used: number[];
  /** A session opened at an older epoch is refused. */
  session_epoch: number;
  [key: string]: unknown;
}

/** Account-wide team settings (collection `teams`, id = account id). */
export interface TeamDoc {
  id: string;
  require_two_factor: boolean;
  [key: string]: unknown;
}

/** One line of the security log (collection `security_log`, id = the event's id). */
export interface SecurityLogEntry {
  id: string;
  account_id: string;
  at: string;
  /** The event type: `security.sign_in_failed`, `member.invited`, `account.api_key_rolled`… */
  type: string;
  /** The member the line is about (signed in, invited, changed), when one. */
  member: string | null;
  /** The e-mail the line is about (a sign-in attempt's, an invitation's). */
  email: string | null;
  /** The member who acted, when a member acted. */
  actor: string | null;
  address: string | null;
  /** What else the event says: role, reason, key id, expiry… (never a secret). */
  detail: Record<string, string | number | boolean | null>;
  [key: string]: unknown;
}
