import { Inject, Injectable } from '@nestjs/common';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { PageSessionSigning } from '#portal/application/portal-signing.js';
import type { Role } from '../domain/roles.js';
import { newSessionId, sha256Hex } from '../infrastructure/tokens.js';
import { type SessionDoc, TeamStores } from '../infrastructure/team-stores.js';
import type { MemberDoc } from '../read-models/member.read-model.js';
import { SecurityLog } from './security-log.js';

/** A session ends after this long without a request (ASVS 3.3.2). */
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** And at the latest this long after sign-in, whatever the activity. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** `last_seen_at` is written at most this often (a request a second would otherwise write a second). */
const TOUCH_EVERY_MS = 60 * 1000;

/** A signed-in member, as every dashboard request sees them. */
export interface SignedInMember {
  accountId: string;
  memberId: string;
  email: string;
  role: Role;
  mode: 'test' | 'live';
  /** The session's id in the store (SHA-256 of the cookie's id): never the id itself. */
  sessionKey: string;
  /** The account requires two-factor sign-in and this member has not enrolled: only enrolment is open. */
  mustEnrol: boolean;
}

/**
 * Dashboard sessions: an opaque random id in a signed, HttpOnly, SameSite cookie; the store keeps
 * only its SHA-256, the member, the session's epoch, times, address and browser. A session is refused
 * once idle for 30 minutes, 12 hours after sign-in, when ended by its member, or when the member's
 * epoch moved on (role changed, disabled, removed, password reset or changed) or the member is no
 * longer active.
 */
@Injectable()
export class DashboardSessions {
  constructor(
    private readonly stores: TeamStores,
    private readonly signing: PageSessionSigning,
    private readonly log: SecurityLog,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Opens a session for `member`; returns the cookie's value (the signed id). */
  async open(member: MemberDoc, options: { mode?: 'test' | 'live'; address: string | null; userAgent: string | null; mustEnrol?: boolean }): Promise<string> {
    const id = newSessionId();
    const now = this.clock.now();
    await this.stores.saveSession({
      id: sha256Hex(id),
      account_id: member.account_id,
      member: member.id,
      epoch: member.session_epoch,
      mode: options.mode ?? 'test',
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_LIFETIME_MS).toISOString(),
      address: options.address,
      user_agent: options.userAgent ? options.userAgent.slice(0, 200) : null,
      must_enrol: options.mustEnrol ?? false,
    });
    return this.signing.signOpaque(id);
  }

  /** The member a cookie stands for, or null (unsigned, unknown, idle, expired, ended, or the member changed). */
  async resolve(cookie: string | undefined): Promise<SignedInMember | null> {
    const id = await this.signing.unsignOpaque(cookie);
    if (!id) return null;
    const key = sha256Hex(id);
    const session = await this.stores.session(key);
    if (!session) return null;
    const now = this.clock.now().getTime();
    if (now >= Date.parse(session.expires_at) || now >= Date.parse(session.last_seen_at) + SESSION_IDLE_MS) {
      await this.stores.deleteSession(key);
      return null;
    }
    const member = await this.store.get<MemberDoc>('members', session.member);
    if (!member || member.status !== 'active' || member.account_id !== session.account_id || member.session_epoch !== session.epoch || !member.email) {
      await this.stores.deleteSession(key);
      return null;
    }
    if (now - Date.parse(session.last_seen_at) >= TOUCH_EVERY_MS) await this.stores.saveSession({ ...session, last_seen_at: new Date(now).toISOString() });
    return { accountId: member.account_id, memberId: member.id, email: member.email, role: member.role, mode: session.mode, sessionKey: key, mustEnrol: session.must_enrol && !member.totp_credential };
  }

  async setMode(who: SignedInMember, mode: 'test' | 'live') {
    const session = await this.stores.session(who.sessionKey);
    if (session) await this.stores.saveSession({ ...session, mode });
  }

  /** Enrolment done: the session is a full one. */
  async enrolled(who: SignedInMember) {
    const session = await this.stores.session(who.sessionKey);
    if (session) await this.stores.saveSession({ ...session, must_enrol: false });
  }

  /** The member's open sessions, newest first (never their ids: the store's keys stand for them). */
  async list(memberId: string): Promise<SessionDoc[]> {
    const now = this.clock.now().getTime();
    return (await this.stores.sessionsOf(memberId)).filter((s) => now < Date.parse(s.expires_at) && now < Date.parse(s.last_seen_at) + SESSION_IDLE_MS);
  }

  /** Ends one of the member's sessions (by its store key), or all of them but `except`. */
  async end(who: SignedInMember, which: { key?: string; allBut?: string | null }): Promise<number> {
    const sessions = await this.stores.sessionsOf(who.memberId);
    const ending = sessions.filter((s) => (which.key ? s.id === which.key : s.id !== which.allBut));
    for (const s of ending) await this.stores.deleteSession(s.id);
    if (ending.length > 0) await this.log.record(who.accountId, 'security.session_ended', { member: who.memberId, email: who.email, reason: which.key ? 'ended_by_member' : 'all_ended_by_member', by: who.memberId });
    return ending.length;
  }

  /** Sign-out: this session ends. */
  async close(cookie: string | undefined) {
    const id = await this.signing.unsignOpaque(cookie);
    if (id) await this.stores.deleteSession(sha256Hex(id));
  }
}
