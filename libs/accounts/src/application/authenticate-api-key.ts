import { Inject, Injectable } from '@nestjs/common';
import type { ReadStore } from '../../../read-store/src/read-store.port.js';
import { READ_STORE } from '../../../platform/src/tokens.js';
import { type Mode, parseApiKey, secretMatches } from '../domain/api-key.js';

export interface Principal {
  accountId: string;
  mode: Mode;
}

interface ApiKeyDoc {
  id: string;
  account_id: string;
  mode: Mode;
  secret_hash: string;
}

/** Turns a secret key into the account and mode it stands for, or null. */
@Injectable()
export class AuthenticateApiKey {
  constructor(@Inject(READ_STORE) private readonly store: ReadStore) {}

  async authenticate(rawKey: string): Promise<Principal | null> {
    const parsed = parseApiKey(rawKey);
    if (!parsed) return null;
    const doc = await this.store.get<ApiKeyDoc>('api_keys', parsed.keyId);
    if (!doc || doc.mode !== parsed.mode || !secretMatches(parsed.secret, doc.secret_hash)) return null;
    return { accountId: doc.account_id, mode: doc.mode };
  }
}
