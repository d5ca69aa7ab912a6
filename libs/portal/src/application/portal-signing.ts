import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { signerFactory } from '@fastify/cookie';
import type { EventStore } from '#event-store/event-store.port.js';
import { StoredSigningKey } from '#web/stored-signing-key.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { SecretVault } from '#platform/sealing.module.js';
import { randomBase62 } from '#shared/ids.js';

/** Where the signing key lives when PAGES_SIGNING_SECRET is not set: one stream, written once, read by every process. */
const KEY_STREAM = 'pagessigningkey-default';

/** Who a browser session is: the claims in a signed cookie. */
export interface SessionClaims {
  /** Portal session id (portal) or the key's id (dashboard). */
  sid: string;
  acct: string;
  mode: 'test' | 'live';
  /** Portal: the customer; dashboard: absent. */
  cus?: string;
  /** Expiry, ms since the epoch. */
  exp: number;
  /** Dashboard: the key id of the account's other mode, when the visitor signed in with it too (the mode switch). */
  alt?: string;
}

/**
 * Signs and verifies the cookies of the portal and the dashboard (HMAC-SHA256 through
 * @fastify/cookie's signer over base64url JSON claims). The key is PAGES_SIGNING_SECRET, or a
 * random 32-byte key created once and kept sealed (libs/web/src/stored-signing-key.ts) so every API process verifies the same way.
 */
@Injectable()
export class PageSessionSigning {
  private readonly key: StoredSigningKey;

  constructor(@Inject(EVENT_STORE) events: EventStore, vault: SecretVault) {
    this.key = new StoredSigningKey(events, { env: process.env.PAGES_SIGNING_SECRET, stream: KEY_STREAM, eventType: 'pages.signing_key_created' }, vault);
  }

  private signingKey(): Promise<Buffer> {
    return this.key.get();
  }

  async sign(claims: SessionClaims): Promise<string> {
    const signer = signerFactory(await this.signingKey());
    return signer.sign(Buffer.from(JSON.stringify(claims)).toString('base64url'));
  }

  /** An opaque value (a dashboard session id) signed as it is. */
  async signOpaque(value: string): Promise<string> {
    return signerFactory(await this.signingKey()).sign(value);
  }

  /** The opaque value of a cookie signed by signOpaque, or null when its signature does not hold. */
  async unsignOpaque(signed: string | undefined): Promise<string | null> {
    if (!signed) return null;
    const result = signerFactory(await this.signingKey()).unsign(signed);
    return result.valid && result.value ? result.value : null;
  }

  /** The claims of a cookie value when its signature holds and it has not expired at `now`; else null. */
  async verify(value: string | undefined, now: Date): Promise<SessionClaims | null> {
    if (!value) return null;
    const signer = signerFactory(await this.signingKey());
    const result = signer.unsign(value);
    if (!result.valid || !result.value) return null;
    try {
      const claims = JSON.parse(Buffer.from(result.value, 'base64url').toString('utf8')) as SessionClaims;
      if (typeof claims.exp !== 'number' || claims.exp <= now.getTime()) return null;
      if (typeof claims.acct !== 'string' || (claims.mode !== 'test' && claims.mode !== 'live') || typeof claims.sid !== 'string') return null;
      return claims;
    } catch {
      return null;
    }
  }
}

/** A portal link's secret (`url_id`) and the session id derived from it: the id tells nothing of the secret. */
export function newPortalLink(): { urlId: string; sessionId: string } {
  const urlId = randomBase62(40);
  return { urlId, sessionId: portalSessionIdOf(urlId) };
}

export const portalSessionIdOf = (urlId: string) => `ps_${createHash('sha256').update(`portal:${urlId}`).digest('hex').slice(0, 32)}`;
