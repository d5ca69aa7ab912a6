import { Inject, Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import { READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { DomainError } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import { SecretSealer } from '#shared/sealing.js';
import { newRecoveryCodes, newTotpSecret, normaliseRecoveryCode, qrSvg, totpUri, verifyTotp } from '../infrastructure/totp.js';
import { sha256Hex } from '../infrastructure/tokens.js';
import { TeamStores, type TotpCredential } from '../infrastructure/team-stores.js';
import type { MemberDoc } from '../read-models/member.read-model.js';
import { executeTeam, type Staff, staffContext } from './staff-context.js';
import { openSealed } from './open-sealed.js';

export interface Enrolment {
  /** The pending credential (its sealed secret is stored; enrolment confirms it). */
  credential: string;
  /** The secret, for typing by hand, and the QR code of its otpauth:// URI: shown on the enrolment page only. */
  secret: string;
  qr: string;
}

/**
 * Two-factor enrolment: a new TOTP secret is sealed and stored as a pending credential; the member
 * scans its QR code and confirms with a code; then ten recovery codes are made (shown once, kept
 * hashed) and `member.two_factor_enabled` names the credential.
 */
@Injectable()
export class EnrolTwoFactor {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly engine: ProjectionEngine,
    private readonly stores: TeamStores,
    private readonly sealer: SecretSealer,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  /** The pending enrolment `credential` if it is this member's and not confirmed yet; else a new one. */
  async start(staff: Staff & { member: string }, email: string, accountName: string, credential: string | null): Promise<Enrolment> {
    const pending = await this.stores.credential<TotpCredential>(credential);
    if (pending && pending.member === staff.member && pending.kind === 'totp' && pending.recovery.length === 0) {
      const secret = openSealed(this.sealer, pending.sealed, staff.member);
      return { credential: pending.id, secret, qr: await qrSvg(totpUri(secret, { issuer: accountName, label: email })) };
    }
    const secret = newTotpSecret();
    const id = newId('cred');
    await this.stores.saveCredential({ id, account_id: staff.accountId, member: staff.member, kind: 'totp', sealed: this.sealer.seal(secret), recovery: [], last_step: null, created_at: this.executor.now().toISOString() });
    return { credential: id, secret, qr: await qrSvg(totpUri(secret, { issuer: accountName, label: email })) };
  }

  /** Confirms the pending credential with a code; returns the ten recovery codes (shown once). */
  async confirm(staff: Staff & { member: string }, credential: string, code: string): Promise<string[]> {
    const pending = await this.stores.credential<TotpCredential>(credential);
    if (!pending || pending.member !== staff.member || pending.kind !== 'totp' || pending.recovery.length > 0) throw new DomainError('code_invalid', 'Start the enrolment again', 'code', 400);
    const step = verifyTotp(openSealed(this.sealer, pending.sealed, staff.member), code, this.executor.now(), null);
    if (step === null) throw new DomainError('code_invalid', 'That code is not right: check the time of your phone and type the current code', 'code', 400);
    const codes = newRecoveryCodes();
    await this.stores.saveCredential({ ...pending, recovery: codes.map((c) => sha256Hex(normaliseRecoveryCode(c))), last_step: step });
    const result = await executeTeam(this.executor, staffContext(staff), { type: 'EnableTwoFactor', member: staff.member, credential: pending.id });
    await this.engine.waitFor(result.position);
    return codes;
  }

  /** Turns two-factor sign-in off for `member` (the member themself with their password checked by the caller, or an owner/admin). */
  async disable(staff: Staff, member: string): Promise<void> {
    const doc = await this.store.get<MemberDoc>('members', member);
    if (!doc || doc.account_id !== staff.accountId) throw new DomainError('resource_missing', `No such member: '${member}'`, 'member', 404);
    const result = await executeTeam(this.executor, staffContext(staff), { type: 'DisableTwoFactor', by: staff.member, member });
    await this.engine.waitFor(result.position);
  }
}
