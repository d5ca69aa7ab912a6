import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '#shared/ids.js';

export type Mode = 'test' | 'live';
/** A secret key (`sk_`) may do everything; a restricted key (`rk_`) only what its permissions allow. */
export type ApiKeyKind = 'secret' | 'restricted';
export type ApiKeyAccess = 'read' | 'write';

/**
 * Every resource of the API a restricted key is given a permission on (`none` is its absence;
 * `write` implies `read`). Each authenticated `/v1` route declares the one it belongs to
 * (`@ApiResource`, libs/http/src/api-resource.ts); GET and HEAD need `read`, any other method `write`.
 */
export const RESTRICTED_KEY_RESOURCES = [
  'products',
  'prices',
  'customers',
  'payment_methods',
  'subscriptions',
  'subscription_items',
  'coupons',
  'collections',
  'charges',
  'invoices',
  'credit_notes',
  'checkout_sessions',
  'payment_links',
  'storefronts',
  'portal_sessions',
  'events',
  'reports',
  'webhook_endpoints',
  'test_clocks',
  'country_parameters',
  'outbox',
  'account',
  'audit',
] as const;
export type ApiKeyResource = (typeof RESTRICTED_KEY_RESOURCES)[number];
export type ApiKeyPermissions = Partial<Record<ApiKeyResource, ApiKeyAccess>>;

const RESOURCE_SET: ReadonlySet<string> = new Set(RESTRICTED_KEY_RESOURCES);
export const isApiKeyResource = (value: unknown): value is ApiKeyResource => typeof value === 'string' && RESOURCE_SET.has(value);

/** Whether `permissions` allow `access` on `resource` (`write` implies `read`). */
export function permits(permissions: ApiKeyPermissions | undefined, resource: ApiKeyResource, access: ApiKeyAccess): boolean {
  const granted = permissions?.[resource];
  return granted === 'write' || (granted === 'read' && access === 'read');
}

/**
 * Keys: `sk_<mode>_` (secret) or `rk_<mode>_` (restricted) + a 12-character key id + a 32-character
 * secret (base62, 190 bits). The key id is looked up; only a SHA-256 of the secret is stored,
 * compared in constant time.
 */
export interface IssuedKey {
  key: string;
  keyId: string;
  mode: Mode;
  secretHash: string;
}

/** A fresh key id and secret, before it is known which kind and mode of key they make. */
export interface KeyMaterial {
  keyId: string;
  secret: string;
  secretHash: string;
  /** The last four characters of the whole key (of the secret). */
  last4: string;
}

const KEY = /^(sk|rk)_(test|live)_([0-9A-Za-z]{12})([0-9A-Za-z]{32})$/;
const PREFIX: Record<ApiKeyKind, string> = { secret: 'sk', restricted: 'rk' };

export function newKeyMaterial(): KeyMaterial {
  const keyId = randomBase62(12);
  const secret = randomBase62(32);
  return { keyId, secret, secretHash: hashSecret(secret), last4: secret.slice(-4) };
}

/** The key in clear: shown once, when created or rolled. */
export function formatApiKey(kind: ApiKeyKind, mode: Mode, material: Pick<KeyMaterial, 'keyId' | 'secret'>): string {
  return `${PREFIX[kind]}_${mode}_${material.keyId}${material.secret}`;
}

/** A fresh secret key (an account's creation). */
export function issueApiKey(mode: Mode, kind: ApiKeyKind = 'secret'): IssuedKey & { last4: string } {
  const material = newKeyMaterial();
  return { key: formatApiKey(kind, mode, material), keyId: material.keyId, mode, secretHash: material.secretHash, last4: material.last4 };
}

export function parseApiKey(raw: string): { kind: ApiKeyKind; mode: Mode; keyId: string; secret: string } | null {
  const m = KEY.exec(raw);
  return m ? { kind: m[1] === 'rk' ? 'restricted' : 'secret', mode: m[2] as Mode, keyId: m[3], secret: m[4] } : null;
}

/** How a key is shown after its creation: `sk_live_…wxyz` (its prefix and last four characters; `…` alone when they are unknown). */
export function maskKey(kind: ApiKeyKind, mode: Mode, last4: string | null | undefined): string {
  return `${PREFIX[kind]}_${mode}_…${last4 ?? ''}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
