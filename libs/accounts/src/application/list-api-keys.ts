import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { type ApiKeyKind, type ApiKeyPermissions, maskKey, type Mode } from '../domain/api-key.js';
import { DEFAULT_KEY_NAMES } from '../domain/account-api-keys.js';
import { API_KEY_USAGE, type ApiKeyDoc, type ApiKeyUsageDoc } from '../read-models/api-key.read-model.js';

/**
 * A key as it is listed: masked (`sk_live_…wxyz`), never its secret nor the hash of it. `status`:
 * `active`; `expiring` (rolled, still working until `expires_at`); `expired`; `revoked`.
 */
export interface ApiKeyObject {
  object: 'api_key';
  id: string;
  kind: ApiKeyKind;
  mode: Mode;
  name: string;
  masked: string;
  status: 'active' | 'expiring' | 'expired' | 'revoked';
  created_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  /** Written at most once a minute per key: null when never used (or not since usage was recorded). */
  last_used_at: string | null;
  /** Restricted keys: resource → read | write; null for secret keys (they may do everything). */
  permissions: ApiKeyPermissions | null;
}

export function apiKeyObject(doc: ApiKeyDoc, lastUsedAt: string | null, now: Date): ApiKeyObject {
  const kind = doc.kind ?? 'secret';
  const expiresAt = doc.expires_at ?? null;
  const revokedAt = doc.revoked_at ?? null;
  const status = revokedAt ? 'revoked' : expiresAt === null ? 'active' : now.getTime() >= Date.parse(expiresAt) ? 'expired' : 'expiring';
  return {
    object: 'api_key',
    id: doc.id,
    kind,
    mode: doc.mode,
    name: doc.name ?? DEFAULT_KEY_NAMES[kind],
    masked: maskKey(kind, doc.mode, doc.last4),
    status,
    created_at: doc.created_at ?? null,
    expires_at: expiresAt,
    revoked_at: revokedAt,
    last_used_at: lastUsedAt,
    permissions: kind === 'restricted' ? { ...(doc.permissions ?? {}) } : null,
  };
}

/** The most keys an account lists (well beyond what an account keeps). */
const MAX_KEYS = 1000;

export class ListApiKeysQuery {
  constructor(
    readonly accountId: string,
    /** Only the keys of this mode (both when absent). */
    readonly mode: Mode | null = null,
  ) {}
}

/** Every key of the account (revoked and expired ones too, with their status), oldest first, masked. */
@QueryHandler(ListApiKeysQuery)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeysQuery, ApiKeyObject[]> {
  constructor(
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ accountId, mode }: ListApiKeysQuery): Promise<ApiKeyObject[]> {
    const docs = await this.store.find<ApiKeyDoc>('api_keys', {
      where: mode ? { account_id: accountId, mode } : { account_id: accountId },
      orderBy: { field: 'created_at', direction: 'asc' },
      limit: MAX_KEYS,
    });
    const usage = docs.length ? await this.store.getMany<ApiKeyUsageDoc>(API_KEY_USAGE, docs.map((d) => d.id)) : new Map<string, ApiKeyUsageDoc>();
    const now = this.clock.now();
    return docs.map((d) => apiKeyObject(d, usage.get(d.id)?.last_used_at ?? null, now));
  }
}
