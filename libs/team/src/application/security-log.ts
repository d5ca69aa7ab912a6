import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#event-store/event-store.port.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { newEventUuid } from '#shared/ids.js';

export type SecurityEventType = 'security.sign_in_succeeded' | 'security.sign_in_failed' | 'security.sign_in_locked' | 'security.two_factor_failed' | 'security.session_ended' | 'security.password_reset_requested';

/** Stream of an account's sign-in facts; attempts with an e-mail no member has go to `security-unattributed`. */
export const securityStream = (accountId: string | null) => `security-${accountId ?? 'unattributed'}`;

/**
 * Records what happened at sign-in: successes, failures (with the reason), lockouts. Facts, not
 * decisions: appended with expected revision `any`. Internal events, never in the `evt_` feed; the
 * security log projection shows them with the team's and the keys' events. Never a password, a code
 * or a session id: an e-mail, the member, the address, the user agent and a reason.
 */
@Injectable()
export class SecurityLog {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async record(accountId: string | null, type: SecurityEventType, data: { member?: string | null; email?: string | null; address?: string | null; user_agent?: string | null; reason?: string; locked_until?: string; by?: string | null }): Promise<string> {
    const now = this.clock.now().toISOString();
    const result = await this.events.append(
      securityStream(accountId),
      [{ id: newEventUuid(), type, data: { account_id: accountId, ...data, occurred_at: now }, metadata: { account_id: accountId ?? undefined, occurred_at: now } }],
      'any',
    );
    return result.position;
  }
}
