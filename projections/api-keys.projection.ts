import { AccountCreated } from '#accounts/domain/account.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { ApiKeyDoc } from '#accounts/read-models/api-key.read-model.js';

/** Key id → account, mode and secret hash: what authentication looks up. */
export const apiKeysProjection: Projection<ApiKeyDoc> = {
  name: 'api_keys',
  collection: 'api_keys',
  collections: [{ name: 'api_keys', indexes: [] }],
  documentIds: (e) =>
    e.type === 'account.created' ? (e.data as AccountCreated['data']).api_keys.map((k) => k.key_id) : [],
  project(doc, event, id) {
    if (event.type !== 'account.created') return doc;
    const data = event.data as AccountCreated['data'];
    const key = data.api_keys.find((k) => k.key_id === id)!;
    return { id, account_id: data.account_id, mode: key.mode, secret_hash: key.secret_hash };
  },
};
