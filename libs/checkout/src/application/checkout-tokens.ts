import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EventStore } from '#event-store/event-store.port.js';
import { StoredSigningKey } from '#web/stored-signing-key.js';
import { EVENT_STORE } from '#platform/tokens.js';
import { SecretVault } from '#platform/sealing.module.js';
import { CheckoutTokenError } from './hosted-checkout.js';

/** Where the signing key lives when CHECKOUT_SIGNING_SECRET is not set: one stream, written once, shared by every process. */
const KEY_STREAM = 'checkoutsigningkey-default';

export interface TokenClaims {
  /** The session id. */
  sid: string;
  /** Expiry, ms since the epoch (the session's `expires_at`). */
  exp: number;
}

/**
 * The signed token in a checkout session's URL fragment: `base64url({sid, exp}).base64url(HMAC-SHA256)`.
 * The hosted page needs no API key because the session is signed: a token names exactly one session
 * until its expiry, and any change to it breaks the signature. The key is CHECKOUT_SIGNING_SECRET, or
 * a random 32-byte key created once and kept sealed (libs/web/src/stored-signing-key.ts), shared by every API process.
 */
@Injectable()
export class CheckoutTokens {
  private readonly key: StoredSigningKey;

  constructor(@Inject(EVENT_STORE) events: EventStore, vault: SecretVault) {
    this.key = new StoredSigningKey(events, { env: process.env.CHECKOUT_SIGNING_SECRET, stream: KEY_STREAM, eventType: 'checkout.signing_key_created' }, vault);
  }

  private signingKey(): Promise<Buffer> {
    return this.key.get();
  }

  /** A keyed hash (HMAC-SHA256, hex) of a secret such as an e-mail code: what is stored instead of it. */
  async hash(value: string): Promise<string> {
    return createHmac('sha256', await this.signingKey()).update(`code:${value}`).digest('hex');
  }

  async sign(claims: TokenClaims): Promise<string> {
    const body = Buffer.from(JSON.stringify({ sid: claims.sid, exp: claims.exp })).toString('base64url');
    const mac = createHmac('sha256', await this.signingKey()).update(body).digest('base64url');
    return `${body}.${mac}`;
  }

  /** The claims of an authentic token (expiry is checked by the caller, at the session's time); CheckoutTokenError otherwise. */
  async verify(token: unknown): Promise<TokenClaims> {
    if (typeof token !== 'string' || token.length > 1000) throw new CheckoutTokenError('invalid');
    const dot = token.indexOf('.');
    if (dot <= 0) throw new CheckoutTokenError('invalid');
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = createHmac('sha256', await this.signingKey()).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CheckoutTokenError('invalid');
    try {
      const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenClaims;
      if (typeof claims.sid !== 'string' || !claims.sid.startsWith('cs_') || typeof claims.exp !== 'number') throw new Error('shape');
      return claims;
    } catch {
      throw new CheckoutTokenError('invalid');
    }
  }
}

/** The hosted page of a session: `{checkout_url}/cs/<cs_id>#<token>`. */
export const checkoutSessionUrl = (checkoutUrl: string, sessionId: string, token: string) => `${checkoutUrl}/cs/${sessionId}#${token}`;
