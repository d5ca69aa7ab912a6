import { type Decider, type DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam, invalidState, missingParam, notFound } from '#shared/errors.js';
import { checkMetaData, type MetaData, mergeMetaData } from '#shared/meta-data.js';
import { type Owner, ownedBy } from '#shared/owner.js';
import { isEventPattern, PUBLIC_EVENT_PREFIXES, PUBLIC_EVENT_TYPES } from '#events/public-event-types.js';
import { checkEndpointUrl } from './url-policy.js';

export type EndpointStatus = 'enabled' | 'disabled';

/** The public fields of a webhook endpoint (besides `id`, `object`, `created_date`, `is_test`). */
export interface WebhookEndpointFields {
  url: string;
  enabled_events: string[];
  description: string | null;
  status: EndpointStatus;
  meta_data: MetaData;
}

/**
 * A signing secret, with when it stops signing (null: until rotated away). The secret itself is kept
 * sealed (libs/platform's SecretVault) under `secret_ref`; `secret` is the plain value of an endpoint
 * made before secrets were sealed (its old events still hold it: read as before).
 */
export type SigningSecret = SecretHolder & { expires_at: string | null };

/** Where a signing secret is: sealed under a vault id, or (events written before sealing) in plain. */
export type SecretHolder = { secret_ref: string; secret?: undefined } | { secret: string; secret_ref?: undefined };

/** The holder an event names (`secret_ref`, or the plain `secret` of an old event). */
export const secretHolder = (data: { secret_ref?: string; secret?: string }): SecretHolder =>
  data.secret_ref !== undefined ? { secret_ref: data.secret_ref } : { secret: String(data.secret) };

/** Default overlap of a rotated secret: the old one keeps signing beside the new one for 24 hours. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;

export interface EndpointInput {
  url?: unknown;
  enabled_events?: unknown;
  description?: unknown;
  meta_data?: unknown;
  status?: unknown;
}

export type WebhookEndpointCommand =
  /** `secretRef`: the vault id the new signing secret was sealed under (never the secret). */
  | { type: 'CreateWebhookEndpoint'; owner: Owner; endpointId: string; input: EndpointInput; secretRef: string; now: Date }
  | { type: 'UpdateWebhookEndpoint'; owner: Owner; endpointId: string; input: EndpointInput; now: Date }
  /** The new secret signs from now on; the current one keeps signing beside it for `overlapSeconds`. */
  | { type: 'RotateWebhookSecret'; owner: Owner; endpointId: string; secretRef: string; overlapSeconds?: unknown; now: Date }
  /** The delivery worker gave up on an event (its last retry failed): the endpoint stops receiving. */
  | { type: 'DisableWebhookEndpoint'; owner: Owner; endpointId: string; reason: string; event: string; now: Date }
  | { type: 'DeleteWebhookEndpoint'; owner: Owner; endpointId: string; now: Date }
  /** Test mode: a `webhook_endpoint.test` event, delivered to this endpoint only (whatever its enabled_events). */
  | { type: 'SendTestEvent'; owner: Owner; endpointId: string; now: Date };

export type WebhookEndpointCreated = DomainEvent<
  'webhook_endpoint.created',
  { id: string; account_id: string; is_test: boolean; created_at: string; secret_ref?: string; /** Events written before sealing only. */ secret?: string } & WebhookEndpointFields
>;
export type WebhookEndpointUpdated = DomainEvent<'webhook_endpoint.updated', { id: string; changes: Partial<WebhookEndpointFields> }>;
export type WebhookSecretRotated = DomainEvent<
  'webhook_endpoint.secret_rotated',
  { id: string; secret_ref?: string; /** Events written before sealing only. */ secret?: string; previous_secret_expires_at: string; rotated_at: string }
>;
export type WebhookEndpointDisabled = DomainEvent<
  'webhook_endpoint.disabled',
  { id: string; reason: string; event: string; disabled_at: string }
>;
export type WebhookEndpointDeleted = DomainEvent<'webhook_endpoint.deleted', { id: string; deleted_at: string }>;
export type WebhookEndpointTest = DomainEvent<'webhook_endpoint.test', { id: string; sent_at: string }>;
export type WebhookEndpointEvent =
  | WebhookEndpointCreated
  | WebhookEndpointUpdated
  | WebhookSecretRotated
  | WebhookEndpointDisabled
  | WebhookEndpointDeleted
  | WebhookEndpointTest;

export interface WebhookEndpointState {
  exists: boolean;
  deleted: boolean;
  owner: Owner | null;
  fields: WebhookEndpointFields | null;
  secrets: SigningSecret[];
}

export const webhookEndpointStream = (id: string) => `webhookendpoint-${id}`;

const EVENT_PATTERN = /^(\*|[a-z][a-z_]*\.\*|[a-z][a-z_]*(\.[a-z][a-z_]*)+)$/;

/** `enabled_events`: exact types (`subscription.created`), a prefix wildcard (`subscription.*`) or `*`. */
export function checkEnabledEvents(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidParam('enabled_events', 'enabled_events must be a non-empty array of event types');
  if (value.length > 100) throw invalidParam('enabled_events', 'enabled_events can have at most 100 entries');
  for (const v of value) {
    if (typeof v !== 'string' || !EVENT_PATTERN.test(v)) {
      throw invalidParam('enabled_events', `enabled_events entries must be event types such as 'subscription.created', 'subscription.*' or '*' (got ${JSON.stringify(v)})`);
    }
    // Only what the feed can hold: a type nobody ever sends would silently deliver nothing.
    if (!isEventPattern(v)) {
      const prefix = v.slice(0, v.indexOf('.'));
      const hint = PUBLIC_EVENT_PREFIXES.includes(prefix) ? ` (the ${prefix} events are ${PUBLIC_EVENT_TYPES.filter((t) => t.startsWith(`${prefix}.`)).join(', ')}, or ${prefix}.*)` : '';
      throw invalidParam('enabled_events', `enabled_events has an unknown event type '${v}'${hint}: use the types of the event feed (GET /v1/events), a prefix with .* such as 'subscription.*', or '*'`);
    }
  }
  return [...new Set(value as string[])];
}

/** Does an endpoint listening to `enabled` want events of `type`? */
export function eventEnabled(enabled: readonly string[], type: string): boolean {
  for (const pattern of enabled) {
    if (pattern === '*' || pattern === type) return true;
    if (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}

function checkDescription(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw invalidParam('description', 'description must be a string');
  if (value.length > 5000) throw invalidParam('description', 'description must be at most 5000 characters long');
  return value;
}

/** The secrets that sign a message sent at `now`: the current one and any rotated one still in its overlap. */
export function signingSecrets(secrets: readonly SigningSecret[], now: Date): SigningSecret[] {
  return secrets.filter((s) => s.expires_at === null || Date.parse(s.expires_at) > now.getTime());
}

/** Folds a rotation into the secret list (the decider's and the projection's shared rule). */
export function rotateSecrets(secrets: readonly SigningSecret[], event: WebhookSecretRotated['data']): SigningSecret[] {
  const kept = secrets
    .map((s) => (s.expires_at === null ? { ...s, expires_at: event.previous_secret_expires_at } : s))
    .filter((s) => Date.parse(s.expires_at!) > Date.parse(event.rotated_at));
  return [{ ...secretHolder(event), expires_at: null }, ...kept];
}

/**
 * A merchant's webhook endpoint (streams `webhookendpoint-we_…`): where events of its account and
 * mode are sent, which ones, and the secrets that sign them. Its events are part of the public feed
 * (`webhook_endpoint.*`), never with the secret in `data.object`.
 */
export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointState, WebhookEndpointEvent> = {
  initialState: { exists: false, deleted: false, owner: null, fields: null, secrets: [] },

  decide(command, state) {
    if (command.type === 'CreateWebhookEndpoint') {
      if (state.exists) throw invalidState(`Webhook endpoint ${command.endpointId} already exists`);
      const { input, owner } = command;
      if (input.url === undefined) throw missingParam('url');
      if (input.enabled_events === undefined) throw missingParam('enabled_events');
      const url = checkEndpointUrl(input.url, owner.mode);
      const enabled_events = checkEnabledEvents(input.enabled_events);
      const description = checkDescription(input.description);
      const meta_data = checkMetaData(input.meta_data) ?? {};
      if (input.status !== undefined) throw invalidParam('status', 'status can only be set when updating an endpoint');
      return [
        {
          type: 'webhook_endpoint.created',
          data: {
            id: command.endpointId,
            account_id: owner.accountId,
            is_test: owner.mode === 'test',
            created_at: command.now.toISOString(),
            url,
            enabled_events,
            description,
            status: 'enabled',
            meta_data,
            secret_ref: command.secretRef,
          },
        },
      ];
    }
    if (!ownedBy(state, command.owner) || state.deleted) throw notFound('webhook_endpoint', command.endpointId);
    const fields = state.fields!;
    switch (command.type) {
      case 'UpdateWebhookEndpoint': {
        const { input, owner } = command;
        const changes: Partial<WebhookEndpointFields> = {};
        if (input.url !== undefined) {
          const url = checkEndpointUrl(input.url, owner.mode);
          if (url !== fields.url) changes.url = url;
        }
        if (input.enabled_events !== undefined) changes.enabled_events = checkEnabledEvents(input.enabled_events);
        if (input.description !== undefined) changes.description = checkDescription(input.description);
        if (input.meta_data !== undefined) changes.meta_data = mergeMetaData(fields.meta_data, checkMetaData(input.meta_data)!);
        if (input.status !== undefined) {
          if (input.status !== 'enabled' && input.status !== 'disabled') throw invalidParam('status', "status must be 'enabled' or 'disabled'");
          if (input.status !== fields.status) changes.status = input.status;
        }
        return Object.keys(changes).length === 0 ? [] : [{ type: 'webhook_endpoint.updated', data: { id: command.endpointId, changes } }];
      }
      case 'RotateWebhookSecret': {
        const overlap = command.overlapSeconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
        if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > MAX_ROTATION_OVERLAP_SECONDS) {
          throw invalidParam('expires_in', `expires_in must be a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}`);
        }
        return [
          {
            type: 'webhook_endpoint.secret_rotated',
            data: {
              id: command.endpointId,
              secret_ref: command.secretRef,
              previous_secret_expires_at: new Date(command.now.getTime() + overlap * 1000).toISOString(),
              rotated_at: command.now.toISOString(),
            },
          },
        ];
      }
      case 'DisableWebhookEndpoint':
        if (fields.status === 'disabled') return [];
        return [{ type: 'webhook_endpoint.disabled', data: { id: command.endpointId, reason: command.reason, event: command.event, disabled_at: command.now.toISOString() } }];
      case 'SendTestEvent':
        if (command.owner.mode !== 'test') throw new DomainError('test_mode_only', 'Test events can only be sent with a test key', null, 403);
        return [{ type: 'webhook_endpoint.test', data: { id: command.endpointId, sent_at: command.now.toISOString() } }];
      case 'DeleteWebhookEndpoint':
        return [{ type: 'webhook_endpoint.deleted', data: { id: command.endpointId, deleted_at: command.now.toISOString() } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'webhook_endpoint.created': {
        const { account_id, is_test, url, enabled_events, description, status, meta_data } = event.data;
        return {
          exists: true,
          deleted: false,
          owner: { accountId: account_id, mode: is_test ? 'test' : 'live' },
          fields: { url, enabled_events, description, status, meta_data },
          secrets: [{ ...secretHolder(event.data), expires_at: null }],
        };
      }
      case 'webhook_endpoint.updated':
        return { ...state, fields: { ...state.fields!, ...event.data.changes } };
      case 'webhook_endpoint.secret_rotated':
        return { ...state, secrets: rotateSecrets(state.secrets, event.data) };
      case 'webhook_endpoint.disabled':
        return { ...state, fields: { ...state.fields!, status: 'disabled' } };
      case 'webhook_endpoint.deleted':
        return { ...state, deleted: true };
      default:
        return state;
    }
  },
};
