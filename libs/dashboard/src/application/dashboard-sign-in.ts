import { Inject, Injectable } from '@nestjs/common';
import { AuthenticateApiKey } from '../../../accounts/src/application/authenticate-api-key.js';
import { parseApiKey } from '../../../accounts/src/domain/api-key.js';
import type { ReadStore } from '../../../read-store/src/read-store.port.js';
import { READ_STORE } from '../../../platform/src/tokens.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import { PageSessionSigning } from '../../../portal/src/application/portal-signing.js';

/** A signed-in dashboard visitor: the account and mode of the secret key they signed in with. */
export interface DashboardVisitor {
  accountId: string;
  mode: 'test' | 'live';
  keyId: string;
}

/** How long a dashboard session lasts after sign-in. */
export const DASHBOARD_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

/**
 * Dashboard sign-in with the account's secret key (the same check as the API's Basic auth). The
 * browser keeps only a signed cookie naming the account, the mode and the key's id (never the
 * secret); each request checks the key still exists, so a removed key ends its sessions.
 */
@Injectable()
export class DashboardSignIn {
  constructor(
    private readonly auth: AuthenticateApiKey,
    private readonly signing: PageSessionSigning,
    @Inject(READ_STORE) private readonly store: ReadStore,
  ) {}

  /** The cookie value for a valid key, else null. */
  async signIn(rawKey: string, now: Date): Promise<{ cookie: string; visitor: DashboardVisitor } | null> {
    const parsed = parseApiKey(rawKey.trim());
    const principal = parsed ? await this.auth.authenticate(rawKey.trim()) : null;
    if (!parsed || !principal) return null;
    const visitor = { accountId: principal.accountId, mode: principal.mode, keyId: parsed.keyId };
    const cookie = await this.signing.sign({ sid: parsed.keyId, acct: principal.accountId, mode: principal.mode, exp: now.getTime() + DASHBOARD_SESSION_TTL_MS });
    return { cookie, visitor };
  }

  async visitor(cookie: string | undefined, now: Date): Promise<DashboardVisitor | null> {
    const claims = await this.signing.verify(cookie, now);
    if (!claims || claims.cus) return null;
    const key = await this.store.get<{ account_id: string; mode: string }>('api_keys', claims.sid);
    if (!key || key.account_id !== claims.acct || key.mode !== claims.mode) return null;
    return { accountId: claims.acct, mode: claims.mode, keyId: claims.sid };
  }

  contextOf(visitor: DashboardVisitor, requestId: string | null): CommandContext {
    return { accountId: visitor.accountId, mode: visitor.mode, requestId, idempotencyKey: null, actor: { type: 'dashboard' } };
  }
}
