import type { AccountCreated } from '#accounts/domain/account.decider.js';
import type { ApiKeyCreated, ApiKeyEventRecord, ApiKeyRevoked, ApiKeyRolled } from '#accounts/domain/account-api-keys.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { ApiKeyDoc } from '#accounts/read-models/api-key.read-model.js';
import { DEFAULT_KEY_NAMES } from '#accounts/domain/account-api-keys.js';

const docOf = (accountId: string, record: Omit<ApiKeyEventRecord, 'last4'> & { last4: string | null }): ApiKeyDoc => ({
  id: record.key_id,
  account_id: accountId,
  mode: record.mode,
  kind: record.kind,
  name: record.name,
  secret_hash: record.secret_hash,
  last4: record.last4,
  created_at: record.created_at,
  expires_at: null,
  revoked_at: null,
  ...(record.permissions ? { permissions: { ...record.permissions } } : {}),
});

/**
 * Key id → account, mode, kind, secret hash, expiry and revocation: what authentication looks up, and
 * what the key list shows (masked). `account.created`'s keys are secret keys named "Secret key".
 */
export const apiKeysProjection: Projection<ApiKeyDoc> = {
  name: 'api_keys',
  collection: 'api_keys',
  collections: [{ name: 'api_keys', indexes: [{ fields: ['account_id', 'created_at'] }] }],
  documentIds(e) {
    switch (e.type) {
      case 'account.created':
        return (e.data as AccountCreated['data']).api_keys.map((k) => k.key_id);
      case 'account.api_key_created':
      case 'account.api_key_revoked':
        return [String(e.data.key_id)];
      case 'account.api_key_rolled':
        return [String(e.data.key_id), (e.data as ApiKeyRolled['data']).new_key.key_id];
      default:
        return [];
    }
  },
  project(doc, event, id) {
    switch (event.type) {
      case 'account.created': {
        const data = event.data as AccountCreated['data'];
        const key = data.api_keys.find((k) => k.key_id === id)!;
        return docOf(data.account_id, {
          key_id: id,
          kind: 'secret',
          mode: key.mode,
          name: DEFAULT_KEY_NAMES.secret,
          secret_hash: key.secret_hash,
          last4: key.last4 ?? null,
          created_at: key.created_at ?? data.created_at,
        });
      }
      case 'account.api_key_created': {
        const { account_id, ...record } = event.data as unknown as ApiKeyCreated['data'];
        return docOf(account_id, record);
      }
      case 'account.api_key_rolled': {
        const data = event.data as ApiKeyRolled['data'];
        if (id === data.new_key.key_id) return docOf(data.account_id, data.new_key);
        return doc && { ...doc, expires_at: data.expires_at };
      }
      case 'account.api_key_revoked':
        return doc && { ...doc, revoked_at: (event.data as ApiKeyRevoked['data']).revoked_at };
      default:
        return doc;
    }
  },
};
