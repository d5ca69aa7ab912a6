import { Decider, DomainEvent } from '#shared/decider.js';
import { alreadyExists, DomainError, invalidParam, notFound } from '#shared/errors.js';
import {
  ALL_GATEWAYS,
  type GatewayId,
  gatewayNotConfiguredMessage,
  isGatewayId,
  OFFLINE_GATEWAY,
} from '#payments/domain/gateways.js';
import type { Mode } from './api-key.js';
import {
  type ApiKeyCommand,
  type ApiKeyEvent,
  type ApiKeyStates,
  DEFAULT_KEY_NAMES,
  decideCreateApiKey,
  decideRevokeApiKey,
  decideRollApiKey,
  evolveApiKeys,
} from './account-api-keys.js';

/** A key of `account.created`: a secret key. Events written before key management have no `last4` nor `created_at`. */
export interface ApiKeyRecord {
  key_id: string;
  mode: Mode;
  secret_hash: string;
  last4?: string;
  created_at?: string;
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

/**
 * The account's dunning policy, shared by test and live mode: once a collection's due date passes
 * unpaid it is `past_due`; at due + each `retry_days[i]` days a `charge` collection is retried (a
 * `collect` collection gets a reminder); at due + `final_days` it becomes `uncollectible` and its
 * subscription `unpaid`.
 */
export interface RetryPolicy {
  /** 0–10 integers, each 1–60, strictly increasing, all < `final_days`. */
  retry_days: number[];
  /** An integer 1–90. */
  final_days: number;
}

/** A retry policy that cannot be changed through its type (the default is also frozen). */
export type ReadonlyRetryPolicy = { readonly retry_days: readonly number[]; readonly final_days: number };

/** The policy of an account that never set one (documented in docs/decisions/0031-dunning-policy.md). */
export const DEFAULT_RETRY_POLICY: ReadonlyRetryPolicy = Object.freeze({ retry_days: Object.freeze([1, 3, 5]), final_days: 7 });

export const RETRY_POLICY_LIMITS = { maxRetries: 10, maxRetryDay: 60, maxFinalDays: 90 } as const;

/** A fresh copy of `policy` (so callers never share the state's arrays). */
export const copyRetryPolicy = (policy: ReadonlyRetryPolicy): RetryPolicy => ({ retry_days: [...policy.retry_days], final_days: policy.final_days });

/** The account's retry policy (the default when it never set one); a copy. */
export const retryPolicyOf = (state: AccountState): RetryPolicy => copyRetryPolicy(state.retry_policy);

const sameRetryPolicy = (a: ReadonlyRetryPolicy, b: ReadonlyRetryPolicy) =>
  a.final_days === b.final_days && a.retry_days.length === b.retry_days.length && a.retry_days.every((d, i) => d === b.retry_days[i]);

/** Checks the rules of a retry policy; `parameter_invalid` naming `final_days` or `retry_days`. */
export function checkRetryPolicy(retryDays: unknown, finalDays: unknown): RetryPolicy {
  const { maxRetries, maxRetryDay, maxFinalDays } = RETRY_POLICY_LIMITS;
  if (typeof finalDays !== 'number' || !Number.isInteger(finalDays) || finalDays < 1 || finalDays > maxFinalDays) {
    throw invalidParam('final_days', `final_days must be an integer from 1 to ${maxFinalDays}`);
  }
  if (!Array.isArray(retryDays)) throw invalidParam('retry_days', 'retry_days must be an array of integers');
  if (retryDays.length > maxRetries) throw invalidParam('retry_days', `retry_days may have at most ${maxRetries} entries`);
  retryDays.forEach((day: unknown, i) => {
    if (typeof day !== 'number' || !Number.isInteger(day) || day < 1 || day > maxRetryDay) {
      throw invalidParam('retry_days', `retry_days must be integers from 1 to ${maxRetryDay} (retry_days[${i}] is ${JSON.stringify(day)})`);
    }
    if (i > 0 && day <= (retryDays[i - 1] as number)) throw invalidParam('retry_days', 'retry_days must be strictly increasing');
    if (day >= finalDays) throw invalidParam('retry_days', `every entry of retry_days must be less than final_days (${finalDays})`);
  });
  return { retry_days: [...(retryDays as number[])], final_days: finalDays };
}

export type AccountCommand =
  | {
      type: 'CreateAccount';
      accountId: string;
      name: string;
      apiKeys: ApiKeyRecord[];
      now: Date;
    }
  | { type: 'ConfigureGateway'; accountId: string; mode: Mode; gateway: string; now: Date }
  | { type: 'RemoveGateway'; accountId: string; mode: Mode; gateway: string; now: Date }
  | { type: 'SetRetryPolicy'; accountId: string; retry_days: number[]; final_days: number; now: Date }
  | { type: 'RenameAccount'; accountId: string; name: string; now: Date }
  | ApiKeyCommand;

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
export type AccountRetryPolicySet = DomainEvent<
  'account.retry_policy_set',
  { account_id: string; retry_days: number[]; final_days: number; set_at: string }
>;
export type AccountRenamed = DomainEvent<'account.renamed', { account_id: string; name: string; renamed_at: string }>;
export type AccountEvent = AccountCreated | AccountGatewayConfigured | AccountGatewayRemoved | AccountRetryPolicySet | AccountRenamed | ApiKeyEvent;

/** The name customers see (e-mails, hosted pages): 1 to 200 characters once trimmed. */
function checkAccountName(value: string): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length === 0 || name.length > 200) throw invalidParam('name', 'name must be 1 to 200 characters long');
  return name;
}

export interface AccountState {
  exists: boolean;
  name: string | null;
  gateways: AccountGatewaySets;
  /** `DEFAULT_RETRY_POLICY` until `account.retry_policy_set`. */
  retry_policy: RetryPolicy;
  /** Every key by id (`account.created`'s are secret keys), with its expiry once rolled and whether it was revoked. */
  keys: ApiKeyStates;
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

/**
 * A merchant account: its API keys (one test and one live secret key at creation; more created, rolled
 * and revoked since: account-api-keys.ts), its configured gateways per mode and its retry policy.
 */
export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  initialState: { exists: false, name: null, gateways: { test: [], live: [] }, retry_policy: copyRetryPolicy(DEFAULT_RETRY_POLICY), keys: {} },

  decide(command, state) {
    switch (command.type) {
      case 'CreateAccount': {
        if (state.exists) throw alreadyExists(`Account ${command.accountId} already exists`, null);
        const name = checkAccountName(command.name);
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
      case 'SetRetryPolicy': {
        if (!state.exists) throw notFound('account', command.accountId, null);
        const policy = checkRetryPolicy(command.retry_days, command.final_days);
        if (sameRetryPolicy(policy, state.retry_policy)) return [];
        return [
          {
            type: 'account.retry_policy_set',
            data: { account_id: command.accountId, retry_days: policy.retry_days, final_days: policy.final_days, set_at: command.now.toISOString() },
          },
        ];
      }
      case 'RenameAccount': {
        if (!state.exists) throw notFound('account', command.accountId, null);
        const name = checkAccountName(command.name);
        if (name === state.name) return [];
        return [{ type: 'account.renamed', data: { account_id: command.accountId, name, renamed_at: command.now.toISOString() } }];
      }
      case 'CreateApiKey':
        if (!state.exists) throw notFound('account', command.accountId, null);
        return decideCreateApiKey(command);
      case 'RollApiKey':
        if (!state.exists) throw notFound('account', command.accountId, null);
        return decideRollApiKey(command, state.keys);
      case 'RevokeApiKey':
        if (!state.exists) throw notFound('account', command.accountId, null);
        return decideRevokeApiKey(command, state.keys);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'account.created': {
        const gateways = event.data.gateways ?? defaultGateways();
        const keys: ApiKeyStates = {};
        for (const k of event.data.api_keys) {
          keys[k.key_id] = { kind: 'secret', mode: k.mode, name: DEFAULT_KEY_NAMES.secret, expires_at: null, revoked: false, rolled_to: null };
        }
        return { ...state, exists: true, name: event.data.name, gateways: { test: [...gateways.test], live: [...gateways.live] }, keys };
      }
      case 'account.gateway_configured': {
        const { mode, gateway } = event.data;
        return { ...state, gateways: { ...state.gateways, [mode]: inCatalogueOrder([...state.gateways[mode], gateway]) } };
      }
      case 'account.gateway_removed': {
        const { mode, gateway } = event.data;
        return { ...state, gateways: { ...state.gateways, [mode]: state.gateways[mode].filter((g) => g !== gateway) } };
      }
      case 'account.retry_policy_set':
        return { ...state, retry_policy: { retry_days: [...event.data.retry_days], final_days: event.data.final_days } };
      case 'account.renamed':
        return { ...state, name: event.data.name };
      case 'account.api_key_created':
      case 'account.api_key_rolled':
      case 'account.api_key_revoked':
        return { ...state, keys: evolveApiKeys(state.keys, event) };
      default:
        return state;
    }
  },
};
