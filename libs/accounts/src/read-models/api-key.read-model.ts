import type { Doc } from '#projection-runtime/projection.js';

/** An API key as the `api_keys` read model holds it: what authentication looks up by key id. */
export interface ApiKeyDoc extends Doc {
  account_id: string;
  mode: 'test' | 'live';
  secret_hash: string;
}
