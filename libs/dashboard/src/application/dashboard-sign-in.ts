import { Inject, Injectable } from '@nestjs/common';
import { AuthenticateApiKey } from '#accounts/application/authenticate-api-key.js';
import { parseApiKey } from '#accounts/domain/api-key.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import type { CommandContext } from '#platform/command-context.js';
import { PageSessionSigning } from '#portal/application/portal-signing.js';

/** A signed-in dashboard visitor: the account and mode of the secret key they signed in with. */
export interface DashboardVisitor {
  accountId: string;
  mode: 'test' | 'live';
  keyId: string;
  /** The other mode's key id, when signed in with it too: the mode switch needs no key then. */
  altKeyId: string | null;
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

  /**
   * The cookie value for a valid key, else null. Signed in already with the same account's key of
   * the other mode (`current`), that key is kept as the switch's other side.
   */
  async signIn(rawKey: string, now: Date, current: DashboardVisitor | null = null): Promise<{ cookie: string; visitor: DashboardVisitor } | null> {
    const parsed = parseApiKey(rawKey.trim());
    const principal = parsed ? await this.auth.authenticate(rawKey.trim()) : null;
    if (!parsed || !principal) return null;
    const altKeyId = current && current.accountId === principal.accountId && current.mode !== principal.mode ? current.keyId : null;
    const visitor: DashboardVisitor = { accountId: principal.accountId, mode: principal.mode, keyId: parsed.keyId, altKeyId };
    return { cookie: await this.cookieOf(visitor, now), visitor };
  }

  /** The other mode, when its key was given in this session; null otherwise (sign in with it). */
  async switchMode(visitor: DashboardVisitor, now: Date): Promise<string | null> {
    if (!visitor.altKeyId) return null;
    const key = await this.store.get<{ account_id: string; mode: string }>('api_keys', visitor.altKeyId);
    if (!key || key.account_id !== visitor.accountId || key.mode === visitor.mode) return null;
    return this.cookieOf({ accountId: visitor.accountId, mode: key.mode as DashboardVisitor['mode'], keyId: visitor.altKeyId, altKeyId: visitor.keyId }, now);
  }

  private cookieOf(v: DashboardVisitor, now: Date): Promise<string> {
    return this.signing.sign({ sid: v.keyId, acct: v.accountId, mode: v.mode, exp: now.getTime() + DASHBOARD_SESSION_TTL_MS, ...(v.altKeyId ? { alt: v.altKeyId } : {}) });
  }

  async visitor(cookie: string | undefined, now: Date): Promise<DashboardVisitor | null> {
    const claims = await this.signing.verify(cookie, now);
    if (!claims || claims.cus) return null;
    const key = await this.store.get<{ account_id: string; mode: string }>('api_keys', claims.sid);
    if (!key || key.account_id !== claims.acct || key.mode !== claims.mode) return null;
    return { accountId: claims.acct, mode: claims.mode, keyId: claims.sid, altKeyId: typeof claims.alt === 'string' ? claims.alt : null };
  }

  contextOf(visitor: DashboardVisitor, requestId: string | null): CommandContext {
    return { accountId: visitor.accountId, mode: visitor.mode, requestId, idempotencyKey: null, actor: { type: 'dashboard' } };
  }
}
