import { Decider, DomainEvent } from '../../../shared/src/decider.js';
import { alreadyExists, DomainError, invalidParam, notFound } from '../../../shared/src/errors.js';
import {
  ALL_GATEWAYS,
  type GatewayId,
  gatewayNotConfiguredMessage,
  isGatewayId,
  OFFLINE_GATEWAY,
} from '../../../payments/src/domain/gateways.js';
import type { Mode } from './api-key.js';

export interface ApiKeyRecord {
  key_id: string;
  mode: Mode;
  secret_hash: string;
}

/**
 * What carries a gateway's payments. Only two exist: the simulator (every `gateway_a…j`, in test
 * and in live mode) and `offline` (the pseudo-gateway, recorded by hand). No real connector yet.
 */
export type GatewayConnector = 'simulator' | 'offline';

/** The gateway ids configured on an account, per mode, in catalogue order. */
export interface AccountGatewaySets {
  test: string[];
  live: string[];
}

export const MODES: readonly Mode[] = ['test', 'live'];
export const isMode = (value: unknown): value is Mode => value === 'test' || value === 'live';

/** The connector a gateway gets when configured (in either mode, while no real connector exists). */
export const connectorFor = (gateway: GatewayId): GatewayConnector => (gateway === OFFLINE_GATEWAY ? 'offline' : 'simulator');

/** A new account: every gateway in test mode (simulator, `offline` offline), none in live mode. */
export const defaultGateways = (): AccountGatewaySets => ({ test: [...ALL_GATEWAYS], live: [] });

/** `ids` in the catalogue's order (ALL_GATEWAYS), without duplicates. */
export const inCatalogueOrder = (ids: Iterable<string>): string[] => {
  const set = new Set(ids);
  return (ALL_GATEWAYS as string[]).filter((g) => set.has(g));
};

export type AccountCommand =
  | {
      type: 'CreateAccount';
      accountId: string;
      name: string;
      apiKeys: ApiKeyRecord[];
      now: Date;
    }
  | { type: 'ConfigureGateway'; accountId: string; mode: Mode; gateway: string; now: Date }
  | { type: 'RemoveGateway'; accountId: string; mode: Mode; gateway: string; now: Date };

export type AccountCreated = DomainEvent<
  'account.created',
  {
    account_id: string;
    name: string;
    created_at: string;
    api_keys: ApiKeyRecord[];
    /** Absent in events written before gateways existed: read as `defaultGateways()`. */
    gateways?: AccountGatewaySets;
  }
>;
export type AccountGatewayConfigured = DomainEvent<
  'account.gateway_configured',
  { account_id: string; mode: Mode; gateway: GatewayId; connector: GatewayConnector; configured_at: string }
>;
export type AccountGatewayRemoved = DomainEvent<
  'account.gateway_removed',
  { account_id: string; mode: Mode; gateway: GatewayId; removed_at: string }
>;
export type AccountEvent = AccountCreated | AccountGatewayConfigured | AccountGatewayRemoved;

export interface AccountState {
  exists: boolean;
  name: string | null;
  gateways: AccountGatewaySets;
}

export const accountStream = (accountId: string) => `account-${accountId}`;

/** The gateways configured on the account in `mode`, in catalogue order (a copy). */
export const configuredGateways = (state: AccountState, mode: Mode): string[] => [...state.gateways[mode]];

function checkGatewayCommand(command: { accountId: string; mode: Mode; gateway: string }, state: AccountState): GatewayId {
  if (!state.exists) throw notFound('account', command.accountId, null);
  if (!isMode(command.mode)) throw invalidParam('mode', 'mode must be test or live');
  if (!isGatewayId(command.gateway)) {
    throw invalidParam('gateway', `No such gateway: '${String(command.gateway)}'. gateway must be one of ${ALL_GATEWAYS.join(', ')}`);
  }
  return command.gateway;
}

/** A merchant account: its API keys (one live, one test) and its configured gateways per mode. */
export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  initialState: { exists: false, name: null, gateways: { test: [], live: [] } },

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
            data: {
              account_id: command.accountId,
              name,
              created_at: command.now.toISOString(),
              api_keys: command.apiKeys,
              gateways: defaultGateways(),
            },
          },
        ];
      }
      case 'ConfigureGateway': {
        const gateway = checkGatewayCommand(command, state);
        if (state.gateways[command.mode].includes(gateway)) return [];
        return [
          {
            type: 'account.gateway_configured',
            data: {
              account_id: command.accountId,
              mode: command.mode,
              gateway,
              connector: connectorFor(gateway),
              configured_at: command.now.toISOString(),
            },
          },
        ];
      }
      case 'RemoveGateway': {
        const gateway = checkGatewayCommand(command, state);
        if (!state.gateways[command.mode].includes(gateway)) {
          throw new DomainError('resource_missing', gatewayNotConfiguredMessage(gateway), 'gateway', 404);
        }
        return [
          {
            type: 'account.gateway_removed',
            data: { account_id: command.accountId, mode: command.mode, gateway, removed_at: command.now.toISOString() },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'account.created': {
        const gateways = event.data.gateways ?? defaultGateways();
        return { exists: true, name: event.data.name, gateways: { test: [...gateways.test], live: [...gateways.live] } };
      }
      case 'account.gateway_configured': {
        const { mode, gateway } = event.data;
        return { ...state, gateways: { ...state.gateways, [mode]: inCatalogueOrder([...state.gateways[mode], gateway]) } };
      }
      case 'account.gateway_removed': {
        const { mode, gateway } = event.data;
        return { ...state, gateways: { ...state.gateways, [mode]: state.gateways[mode].filter((g) => g !== gateway) } };
      }
      default:
        return state;
    }
  },
};
