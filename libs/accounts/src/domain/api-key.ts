import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '#shared/ids.js';

export type Mode = 'test' | 'live';

/**
 * Secret keys: `sk_<mode>_` + a 12-character key id + a 32-character secret (base62).
 * The key id is looked up; only a SHA-256 of the secret is stored, compared in constant time.
 */
export interface IssuedKey {
  key: string;
  keyId: string;
  mode: Mode;
  secretHash: string;
}

const KEY = /^sk_(test|live)_([0-9A-Za-z]{12})([0-9A-Za-z]{32})$/;

export function issueApiKey(mode: Mode): IssuedKey {
  const keyId = randomBase62(12);
  const secret = randomBase62(32);
  return { key: `sk_${mode}_${keyId}${secret}`, keyId, mode, secretHash: hashSecret(secret) };
}

export function parseApiKey(raw: string): { mode: Mode; keyId: string; secret: string } | null {
  const m = KEY.exec(raw);
  return m ? { mode: m[1] as Mode, keyId: m[2], secret: m[3] } : null;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
