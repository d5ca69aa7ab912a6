import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ID_PREFIX, newId } from '#shared/ids.js';

/**
 * The secrets of links (invitations, password resets) and of dashboard sessions. Only the SHA-256 of
 * a secret is stored: the secret itself is 256 random bits, so its hash needs no salt nor slow hashing.
 */

/** Link tokens: invitations (`invite_`; `inv_` is the invoices') and password resets (`rst_`). */
export type LinkTokenPrefix = typeof ID_PREFIX.invitation | typeof ID_PREFIX.passwordReset;

export interface LinkToken {
  /** The record's id (`invite_…` / `rst_…`): not secret, it names the stored hash. */
  id: string;
  /** 32 random bytes, base64url (43 characters). */
  secret: string;
  /** What the link carries: `<id>.<secret>`. */
  token: string;
}

const LINK_TOKEN = /^((?:invite|rst)_[0-9A-Za-z]{24})\.([A-Za-z0-9_-]{43})$/;

const randomSecret = () => randomBytes(32).toString('base64url');

export function newLinkToken(prefix: LinkTokenPrefix): LinkToken {
  const id = newId(prefix);
  const secret = randomSecret();
  return { id, secret, token: `${id}.${secret}` };
}

/** The id and secret of a link token, or null for anything not shaped like one (no lookup needed). */
export function parseLinkToken(token: unknown): { id: string; secret: string } | null {
  if (typeof token !== 'string' || token.length > 100) return null;
  const m = LINK_TOKEN.exec(token);
  return m ? { id: m[1], secret: m[2] } : null;
}

/** SHA-256 of the UTF-8 text, lowercase hex. */
export function sha256Hex(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

/** Whether SHA-256(secret) is `hash` (hex), compared in constant time. */
export function secretMatches(secret: string, hash: string): boolean {
  if (typeof secret !== 'string' || typeof hash !== 'string' || !/^[0-9a-f]{64}$/i.test(hash)) return false;
  return timingSafeEqual(createHash('sha256').update(secret, 'utf8').digest(), Buffer.from(hash, 'hex'));
}

/** A dashboard session's id (the cookie's value, signed): 32 random bytes, base64url. Stored as its SHA-256. */
export function newSessionId(): string {
  return randomSecret();
}
