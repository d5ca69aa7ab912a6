import { Decider, DomainEvent } from '../../../shared/src/decider.js';
import { alreadyExists, invalidParam } from '../../../shared/src/errors.js';
import type { Mode } from './api-key.js';

export interface ApiKeyRecord {
  key_id: string;
  mode: Mode;
  secret_hash: string;
}

export type AccountCommand = {
  type: 'CreateAccount';
  accountId: string;
  name: string;
  apiKeys: ApiKeyRecord[];
  now: Date;
};

export type AccountCreated = DomainEvent<
  'account.created',
  { account_id: string; name: string; created_at: string; api_keys: ApiKeyRecord[] }
>;
export type AccountEvent = AccountCreated;

export interface AccountState {
  exists: boolean;
  name: string | null;
}

export const accountStream = (accountId: string) => `account-${accountId}`;

/** A merchant account and its API keys (one live, one test). */
export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  initialState: { exists: false, name: null },

  decide(command, state) {
    switch (command.type) {
      case 'CreateAccount': {
        if (state.exists) throw alreadyExists(`Account ${command.accountId} already exists`, null);
        const name = command.name.trim();
        if (name.length === 0 || name.length > 200) throw invalidParam('name', 'name must be 1 to 200 characters long');
        const modes = command.apiKeys.map((k) => k.mode).sort();
        if (modes.join(',') !== 'live,test') throw new Error('an account needs exactly one live and one test key');
        return [
          {
            type: 'account.created',
            data: { account_id: command.accountId, name, created_at: command.now.toISOString(), api_keys: command.apiKeys },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'account.created':
        return { exists: true, name: event.data.name };
      default:
        return state;
    }
  },
};
