import type { ApiKeyEventRecord, KeyMaterialRecord } from '../domain/account-api-keys.js';
import { type ApiKeyKind, formatApiKey, type KeyMaterial, maskKey, type Mode } from '../domain/api-key.js';

/** A key just made (created or rolled): the secret in clear exists only here, shown once, never stored. */
export interface RevealedApiKey {
  id: string;
  key: string;
  masked: string;
  kind: ApiKeyKind;
  mode: Mode;
  name: string;
  position: string | null;
}

/** What the key events record of new key material (the secret's SHA-256 and last four, never the secret). */
export const materialRecord = (material: KeyMaterial): KeyMaterialRecord => ({ key_id: material.keyId, secret_hash: material.secretHash, last4: material.last4 });

/** The key as its event recorded it, with its secret from the material that made it. */
export function revealedKey(record: Pick<ApiKeyEventRecord, 'key_id' | 'kind' | 'mode' | 'name' | 'last4'>, material: KeyMaterial, position: string | null): RevealedApiKey {
  return {
    id: record.key_id,
    key: formatApiKey(record.kind, record.mode, material),
    masked: maskKey(record.kind, record.mode, record.last4),
    kind: record.kind,
    mode: record.mode,
    name: record.name,
    position,
  };
}
