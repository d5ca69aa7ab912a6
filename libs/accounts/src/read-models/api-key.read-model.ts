import type { Doc } from '#projection-runtime/projection.js';
import type { ApiKeyKind, ApiKeyPermissions, Mode } from '../domain/api-key.js';

/**
 * An API key as the `api_keys` read model holds it: what authentication looks up by key id, and
 * what the key list shows (masked). Documents written before key management lack `kind` (a secret
 * key), `name`, `last4`, `created_at`, `expires_at` and `revoked_at` until the projection is rebuilt.
 */
export interface ApiKeyDoc extends Doc {
  account_id: string;
  mode: Mode;
  kind: ApiKeyKind;
  name: string;
  secret_hash: string;
  /** null for the keys of accounts created before key management. */
  last4: string | null;
  created_at: string;
  /** Set when rolled: from then on the key answers 401. */
  expires_at: string | null;
  revoked_at: string | null;
  /** Restricted keys only. */
  permissions?: ApiKeyPermissions;
}

/** Where each key's last use is kept (not a projection: written by authentication, at most once a minute per key). */
export const API_KEY_USAGE = 'api_key_usage';
export interface ApiKeyUsageDoc {
  id: string;
  last_used_at: string;
}

/** Whether a key may authenticate at `now`: not revoked, and not past the expiry a roll gave it. */
export function keyIsUsable(doc: Pick<ApiKeyDoc, 'expires_at' | 'revoked_at'>, now: Date): boolean {
  if (doc.revoked_at) return false;
  return !doc.expires_at || now.getTime() < Date.parse(doc.expires_at);
}
