import { Inject, Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { PageSessionSigning } from '#portal/application/portal-signing.js';
import { SecretSealer } from '#shared/sealing.js';
import { afterFailure, afterSuccess, throttleState } from '../domain/sign-in-throttle.js';
import { verifyNothing, verifyPassword } from '../infrastructure/passwords.js';
import { normaliseRecoveryCode, verifyTotp } from '../infrastructure/totp.js';
import { sha256Hex } from '../infrastructure/tokens.js';
import { type PasswordCredential, type ThrottleDoc, TeamStores, type TotpCredential } from '../infrastructure/team-stores.js';
import type { MemberDoc, TeamDoc } from '../read-models/member.read-model.js';
import { DashboardSessions } from './dashboard-sessions.js';
import { SecurityLog } from './security-log.js';
import { executeTeam, staffContext } from './staff-context.js';
import { openSealed } from './open-sealed.js';

/** How long the second step (the code) may wait after the password was right. */
export const CODE_STEP_MS = 5 * 60 * 1000;

export interface Attempt {
  address: string | null;
  userAgent: string | null;
}

export type SignInOutcome =
  /** Wrong e-mail or password (one answer for both), or a wrong code. */
  | { outcome: 'refused' }
  /** Too many failures: sign-in for this e-mail (or from this address) waits until `until`. */
  | { outcome: 'locked'; until: Date }
  /** The password was right; the code comes next (`pending` is the signed cookie of that step). */
  | { outcome: 'code'; pending: string }
  /** Signed in: `cookie` is the session's cookie value. `mustEnrol`: only two-factor enrolment is open. */
  | { outcome: 'signed_in'; cookie: string; member: MemberDoc; mustEnrol: boolean };

const fresh = (id: string): ThrottleDoc => ({ id, failures: 0, locked_until: null, last_failure_at: null });

/**
 * Sign-in by e-mail and password, then the TOTP code (or a recovery code) when the member has two
 * factors. An unknown e-mail costs and answers the same as a wrong password. Failures are throttled
 * per e-mail and per client address (growing delays, then a lockout that ends by itself: the rules
 * are in domain/sign-in-throttle.ts); every success, failure and lockout goes to the security log.
 */
@Injectable()
export class SignIn {
  constructor(
    private readonly stores: TeamStores,
    private readonly sessions: DashboardSessions,
    private readonly signing: PageSessionSigning,
    private readonly log: SecurityLog,
    private readonly sealer: SecretSealer,
    private readonly executor: AggregateExecutor,
    private readonly engine: ProjectionEngine,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Attempts for one e-mail run one after the other in this process, so parallel guesses cannot all
   * pass the gate before the first failure is counted. (Across several API processes the throttle's
   * read-modify-write is not atomic: a burst split between processes may get a few more tries.)
   */
  private readonly queues = new Map<string, Promise<unknown>>();
  private serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(key) ?? Promise.resolve();
    const run = before.then(work, work);
    const settled = run.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return run;
  }

  withPassword(emailInput: string, password: string, attempt: Attempt): Promise<SignInOutcome> {
    const email = String(emailInput ?? '').trim().toLowerCase();
    return this.serialised(`email:${email}`, () => this.passwordStep(email, password, attempt));
  }

  private async passwordStep(email: string, password: string, attempt: Attempt): Promise<SignInOutcome> {
    const keys = { email: `email:${sha256Hex(email)}`, address: `ip:${attempt.address ?? 'unknown'}` };
    const gate = await this.gate(keys);
    const member = email ? ((await this.store.find<MemberDoc>('members', { where: { email }, orderBy: { field: 'invited_at', direction: 'asc' }, limit: 5 })).find((m) => m.status !== 'invited') ?? null) : null;
    if (gate.locked) {
      await this.log.record(member?.account_id ?? null, 'security.sign_in_locked', { member: member?.id ?? null, email, address: attempt.address, user_agent: attempt.userAgent, locked_until: gate.until.toISOString(), reason: 'attempt_while_locked' });
      return { outcome: 'locked', until: gate.until };
    }
    const credential = await this.stores.credential<PasswordCredential>(member?.password_credential);
    const valid = credential && member?.status === 'active' && password.length > 0 ? await verifyPassword(credential.hash, password) : await verifyNothing();
    if (!valid || !member || member.status !== 'active') {
      const reason = !member ? 'unknown_email' : member.status !== 'active' ? 'member_disabled' : 'wrong_password';
      return this.failed(keys, member, email, reason, attempt);
    }
    await this.stores.saveThrottle({ ...afterSuccess(), id: keys.email });
    if (member.totp_credential) {
      const pending = await this.signing.signOpaque(JSON.stringify({ step: 'code', member: member.id, exp: this.clock.now().getTime() + CODE_STEP_MS }));
      return { outcome: 'code', pending };
    }
    const team = await this.store.get<TeamDoc>('teams', member.account_id);
    return this.signedIn(member, email, attempt, team?.require_two_factor === true);
  }

  /** The member a pending code step stands for, or null (unsigned, expired). */
  async pendingMember(pending: string | undefined): Promise<MemberDoc | null> {
    const raw = await this.signing.unsignOpaque(pending);
    if (!raw) return null;
    try {
      const claims = JSON.parse(raw) as { step?: string; member?: string; exp?: number };
      if (claims.step !== 'code' || typeof claims.member !== 'string' || typeof claims.exp !== 'number' || claims.exp <= this.clock.now().getTime()) return null;
      const member = await this.store.get<MemberDoc>('members', claims.member);
      return member && member.status === 'active' && member.totp_credential ? member : null;
    } catch {
      return null;
    }
  }

  /** The second step: a TOTP code (each used once) or one of the ten recovery codes (each used once). */
  async withCode(pending: string | undefined, code: string, attempt: Attempt): Promise<SignInOutcome> {
    const member = await this.pendingMember(pending);
    if (!member || !member.email) return { outcome: 'refused' };
    return this.serialised(`email:${member.email}`, () => this.codeStep(member, member.email!, code, attempt));
  }

  private async codeStep(member: MemberDoc, email: string, code: string, attempt: Attempt): Promise<SignInOutcome> {
    const keys = { email: `email:${sha256Hex(email)}`, address: `ip:${attempt.address ?? 'unknown'}` };
    const gate = await this.gate(keys);
    if (gate.locked) return { outcome: 'locked', until: gate.until };
    const credential = await this.stores.credential<TotpCredential>(member.totp_credential);
    if (!credential) return { outcome: 'refused' };
    const now = this.clock.now();
    const step = verifyTotp(openSealed(this.sealer, credential.sealed, member.id), code, now, credential.last_step);
    if (step !== null) {
      await this.stores.saveCredential({ ...credential, last_step: step });
      return this.signedIn(member, email, attempt, false);
    }
    const hashed = sha256Hex(normaliseRecoveryCode(code));
    const index = credential.recovery.findIndex((h, i) => h === hashed && !member.recovery_codes_used.includes(i));
    if (index >= 0) {
      try {
        const result = await executeTeam(this.executor, staffContext({ accountId: member.account_id, member: member.id, address: attempt.address }), { type: 'UseRecoveryCode', member: member.id, credential: credential.id, index });
        await this.engine.waitFor(result.position);
        return this.signedIn(member, email, attempt, false, 'recovery_code');
      } catch {
        // Used a moment ago by another request: a failure like any wrong code.
      }
    }
    await this.log.record(member.account_id, 'security.two_factor_failed', { member: member.id, email, address: attempt.address, user_agent: attempt.userAgent, reason: 'wrong_code' });
    return this.failed(keys, member, email, 'wrong_code', attempt, false);
  }

  private async signedIn(member: MemberDoc, email: string, attempt: Attempt, mustEnrol: boolean, method = member.totp_credential ? 'password_and_code' : 'password'): Promise<SignInOutcome> {
    const cookie = await this.sessions.open(member, { address: attempt.address, userAgent: attempt.userAgent, mustEnrol });
    await this.log.record(member.account_id, 'security.sign_in_succeeded', { member: member.id, email, address: attempt.address, user_agent: attempt.userAgent, reason: method });
    return { outcome: 'signed_in', cookie, member, mustEnrol };
  }

  /** Whether attempts for these keys must wait; waits the growing delay of the failures so far. */
  private async gate(keys: { email: string; address: string }): Promise<{ locked: false } | { locked: true; until: Date }> {
    const now = this.clock.now();
    const states = await Promise.all([keys.email, keys.address].map(async (id) => throttleState((await this.stores.throttle(id)) ?? fresh(id), now)));
    const locked = states.filter((s) => s.locked && s.lockedUntil);
    if (locked.length > 0) return { locked: true, until: new Date(Math.max(...locked.map((s) => s.lockedUntil!.getTime()))) };
    const delay = Math.max(...states.map((s) => s.delayMs));
    if (delay > 0) await sleep(delay);
    return { locked: false };
  }

  private async failed(keys: { email: string; address: string }, member: MemberDoc | null, email: string, reason: string, attempt: Attempt, logFailure = true): Promise<SignInOutcome> {
    const now = this.clock.now();
    let lockedUntil: Date | null = null;
    for (const [scope, id] of [['email', keys.email], ['address', keys.address]] as const) {
      const next = { ...afterFailure((await this.stores.throttle(id)) ?? fresh(id), now, scope), id };
      await this.stores.saveThrottle(next);
      const state = throttleState(next, now);
      if (state.locked && state.lockedUntil && (!lockedUntil || state.lockedUntil > lockedUntil)) lockedUntil = state.lockedUntil;
    }
    const account = member?.account_id ?? null;
    if (logFailure) await this.log.record(account, 'security.sign_in_failed', { member: member?.id ?? null, email, address: attempt.address, user_agent: attempt.userAgent, reason });
    if (lockedUntil) {
      await this.log.record(account, 'security.sign_in_locked', { member: member?.id ?? null, email, address: attempt.address, user_agent: attempt.userAgent, locked_until: lockedUntil.toISOString(), reason: 'too_many_failures' });
      return { outcome: 'locked', until: lockedUntil };
    }
    return { outcome: 'refused' };
  }
}
