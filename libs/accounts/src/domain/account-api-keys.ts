import type { DomainEvent } from '#shared/decider.js';
import { invalidParam, invalidState, notFound } from '#shared/errors.js';
import {
  type ApiKeyAccess,
  type ApiKeyKind,
  type ApiKeyPermissions,
  isApiKeyResource,
  type Mode,
  RESTRICTED_KEY_RESOURCES,
} from './api-key.js';

/** The most a rolled key may keep working: 7 days. */
export const MAX_ROLL_EXPIRY_SECONDS = 7 * 24 * 3600;
export const DEFAULT_KEY_NAMES: Record<ApiKeyKind, string> = { secret: 'Secret key', restricted: 'Restricted key' };

/** What a handler mints before the decision: the key id, the hash of the secret and its last four characters. */
export interface KeyMaterialRecord {
  key_id: string;
  secret_hash: string;
  last4: string;
}

/** A key as the key events record it (never the secret: its SHA-256, as `account.created` always did). */
export interface ApiKeyEventRecord {
  key_id: string;
  kind: ApiKeyKind;
  mode: Mode;
  name: string;
  secret_hash: string;
  last4: string;
  created_at: string;
  /** Restricted keys only. */
  permissions?: ApiKeyPermissions;
}

export type ApiKeyCommand =
  | {
      type: 'CreateApiKey';
      accountId: string;
      kind: ApiKeyKind;
      mode: Mode;
      /** Defaults to "Secret key" / "Restricted key". */
      name?: string | null;
      /** Restricted keys only: resource → read | write (`none` entries are dropped). */
      permissions?: Record<string, string> | null;
      key: KeyMaterialRecord;
      now: Date;
    }
  | { type: 'RollApiKey'; accountId: string; keyId: string; expiresInSeconds: number; newKey: KeyMaterialRecord; now: Date }
  | { type: 'RevokeApiKey'; accountId: string; keyId: string; now: Date };

export type ApiKeyCreated = DomainEvent<'account.api_key_created', ApiKeyEventRecord & { account_id: string }>;
export type ApiKeyRolled = DomainEvent<
  'account.api_key_rolled',
  {
    account_id: string;
    /** The key rolled: it keeps working until `expires_at`. */
    key_id: string;
    expires_at: string;
    /** Its replacement: same kind, mode, name and permissions. */
    new_key: ApiKeyEventRecord;
    rolled_at: string;
  }
>;
export type ApiKeyRevoked = DomainEvent<'account.api_key_revoked', { account_id: string; key_id: string; revoked_at: string }>;
export type ApiKeyEvent = ApiKeyCreated | ApiKeyRolled | ApiKeyRevoked;

/** What the account decider knows of each key. */
export interface ApiKeyState {
  kind: ApiKeyKind;
  mode: Mode;
  name: string;
  permissions?: ApiKeyPermissions;
  /** Set when rolled: the key answers 401 from then on. */
  expires_at: string | null;
  revoked: boolean;
  /** The key that replaced this one (set when rolled). */
  rolled_to: string | null;
}

export type ApiKeyStates = Record<string, ApiKeyState>;

const isMode = (value: unknown): value is Mode => value === 'test' || value === 'live';

function checkName(value: unknown, kind: ApiKeyKind): string {
  if (value === undefined || value === null) return DEFAULT_KEY_NAMES[kind];
  const name = typeof value === 'string' ? value.trim() : '';
  if (name.length === 0 || name.length > 100) throw invalidParam('name', 'name must be 1 to 100 characters long');
  return name;
}

/** A restricted key's permissions: known resources, each read or write (none dropped), at least one. */
export function checkPermissions(value: unknown): ApiKeyPermissions {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParam('permissions', 'A restricted key needs permissions: an object of resource → read | write');
  }
  const out: ApiKeyPermissions = {};
  for (const [resource, access] of Object.entries(value as Record<string, unknown>)) {
    if (!isApiKeyResource(resource)) {
      throw invalidParam(`permissions[${resource}]`, `Unknown resource '${resource}'. Resources: ${RESTRICTED_KEY_RESOURCES.join(', ')}`);
    }
    if (access === 'none') continue;
    if (access !== 'read' && access !== 'write') throw invalidParam(`permissions[${resource}]`, `permissions[${resource}] must be none, read or write`);
    out[resource] = access as ApiKeyAccess;
  }
  if (Object.keys(out).length === 0) throw invalidParam('permissions', 'A restricted key needs read or write permission on at least one resource');
  // In the catalogue's order, so equal permissions are recorded alike.
  return Object.fromEntries(RESTRICTED_KEY_RESOURCES.filter((r) => out[r]).map((r) => [r, out[r]])) as ApiKeyPermissions;
}

/** A key that can still be used (rolled keys until their expiry): 404 `resource_missing` param `key` otherwise. */
function liveKey(keys: ApiKeyStates, keyId: string, now: Date): ApiKeyState {
  const key = Object.prototype.hasOwnProperty.call(keys, keyId) ? keys[keyId] : undefined;
  if (!key || key.revoked || (key.expires_at !== null && now.getTime() >= Date.parse(key.expires_at))) throw notFound('API key', String(keyId), 'key');
  return key;
}

export function decideCreateApiKey(command: Extract<ApiKeyCommand, { type: 'CreateApiKey' }>): ApiKeyEvent[] {
  if (command.kind !== 'secret' && command.kind !== 'restricted') throw invalidParam('kind', 'kind must be secret or restricted');
  if (!isMode(command.mode)) throw invalidParam('mode', 'mode must be test or live');
  const name = checkName(command.name, command.kind);
  let permissions: ApiKeyPermissions | undefined;
  if (command.kind === 'restricted') permissions = checkPermissions(command.permissions);
  else if (command.permissions != null && Object.keys(command.permissions).length > 0) {
    throw invalidParam('permissions', 'Only restricted keys have permissions: a secret key may do everything');
  }
  return [
    {
      type: 'account.api_key_created',
      data: {
        account_id: command.accountId,
        key_id: command.key.key_id,
        kind: command.kind,
        mode: command.mode,
        name,
        secret_hash: command.key.secret_hash,
        last4: command.key.last4,
        created_at: command.now.toISOString(),
        ...(permissions ? { permissions } : {}),
      },
    },
  ];
}

/**
 * Rolls a key: a new one of the same kind, mode, name and permissions; the old one keeps working for
 * `expiresInSeconds` (0 = ends now, at most 7 days). A key already rolled (still in its overlap) is
 * not rolled again: its replacement is the one to roll (409 `invalid_state`), so at most one
 * expiring key stands behind each live one.
 */
export function decideRollApiKey(command: Extract<ApiKeyCommand, { type: 'RollApiKey' }>, keys: ApiKeyStates): ApiKeyEvent[] {
  const { expiresInSeconds: seconds } = command;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_ROLL_EXPIRY_SECONDS) {
    throw invalidParam('expires_in', `expires_in must be a whole number of seconds from 0 to ${MAX_ROLL_EXPIRY_SECONDS} (7 days)`);
  }
  const old = liveKey(keys, command.keyId, command.now);
  if (old.expires_at !== null) {
    throw invalidState(`This key was already rolled (it expires at ${old.expires_at}); roll its replacement, ${old.rolled_to}, instead.`, 'key');
  }
  const now = command.now.toISOString();
  return [
    {
      type: 'account.api_key_rolled',
      data: {
        account_id: command.accountId,
        key_id: command.keyId,
        expires_at: new Date(command.now.getTime() + seconds * 1000).toISOString(),
        new_key: {
          key_id: command.newKey.key_id,
          kind: old.kind,
          mode: old.mode,
          name: old.name,
          secret_hash: command.newKey.secret_hash,
          last4: command.newKey.last4,
          created_at: now,
          ...(old.permissions ? { permissions: { ...old.permissions } } : {}),
        },
        rolled_at: now,
      },
    },
  ];
}

/** Revokes a key at once (a rolled key still in its overlap too). */
export function decideRevokeApiKey(command: Extract<ApiKeyCommand, { type: 'RevokeApiKey' }>, keys: ApiKeyStates): ApiKeyEvent[] {
  liveKey(keys, command.keyId, command.now);
  return [{ type: 'account.api_key_revoked', data: { account_id: command.accountId, key_id: command.keyId, revoked_at: command.now.toISOString() } }];
}

const stateOf = (record: ApiKeyEventRecord): ApiKeyState => ({
  kind: record.kind,
  mode: record.mode,
  name: record.name,
  ...(record.permissions ? { permissions: { ...record.permissions } } : {}),
  expires_at: null,
  revoked: false,
  rolled_to: null,
});

/** The keys after a key event. */
export function evolveApiKeys(keys: ApiKeyStates, event: ApiKeyEvent): ApiKeyStates {
  switch (event.type) {
    case 'account.api_key_created':
      return { ...keys, [event.data.key_id]: stateOf(event.data) };
    case 'account.api_key_rolled': {
      const old = keys[event.data.key_id];
      return {
        ...keys,
        ...(old ? { [event.data.key_id]: { ...old, expires_at: event.data.expires_at, rolled_to: event.data.new_key.key_id } } : {}),
        [event.data.new_key.key_id]: stateOf(event.data.new_key),
      };
    }
    case 'account.api_key_revoked': {
      const old = keys[event.data.key_id];
      return old ? { ...keys, [event.data.key_id]: { ...old, revoked: true } } : keys;
    }
  }
}
