import type { RecordedEvent } from '#event-store/event-store.port.js';
import {
  type AccountCreated,
  type AccountGatewaySets,
  type AccountGatewayConfigured,
  type AccountGatewayRemoved,
  type AccountRenamed,
  type AccountRetryPolicySet,
  copyRetryPolicy,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  connectorFor,
  defaultGateways,
  inCatalogueOrder,
} from '#accounts/domain/account.decider.js';
import type { Mode } from '#accounts/domain/api-key.js';
import type { GatewayId } from '#payments/domain/gateways.js';
import { formatCreatedDate } from '#shared/dates.js';
import type { Doc, Projection } from './runtime/projection.js';

/** A configured gateway as recorded: its id and the connector that carries it. */
export interface ConfiguredGatewayEntry {
  id: string;
  connector: string;
}

export interface AccountDoc extends Doc {
  object: 'account';
  name: string;
  created_date: string;
  /** Per mode, in catalogue order. Documents projected before gateways existed lack it: read as the defaults. */
  gateways?: Record<Mode, ConfiguredGatewayEntry[]>;
  /**
   * The dunning policy the account set (both modes). null until it sets one, and absent in documents
   * projected before policies existed: both read as `DEFAULT_RETRY_POLICY` (see `retryPolicyOfDoc`).
   */
  retry_policy?: RetryPolicy | null;
}

/** The account's retry policy as the read model has it: the default when it never set one. */
export const retryPolicyOfDoc = (doc: AccountDoc): RetryPolicy => copyRetryPolicy(doc.retry_policy ?? DEFAULT_RETRY_POLICY);

const ACCOUNT_EVENTS = new Set(['account.created', 'account.gateway_configured', 'account.gateway_removed', 'account.retry_policy_set', 'account.renamed']);

/** Gateway ids with the connector each got when configured by default (events before `connector` was recorded). */
function entriesOf(sets: AccountGatewaySets): Record<Mode, ConfiguredGatewayEntry[]> {
  const entries = (ids: string[]) => ids.map((id) => ({ id, connector: connectorFor(id as GatewayId) }));
  return { test: entries(sets.test), live: entries(sets.live) };
}

/** The gateways of a new account (and of a document projected before gateways existed). */
export const defaultGatewayEntries = () => entriesOf(defaultGateways());

function withEntry(list: ConfiguredGatewayEntry[], entry: ConfiguredGatewayEntry): ConfiguredGatewayEntry[] {
  const byId = new Map(list.map((e) => [e.id, e]));
  byId.set(entry.id, entry);
  return inCatalogueOrder(byId.keys()).map((id) => byId.get(id)!);
}

/** Merchant accounts, their configured gateways and retry policy (internal: the API does not list accounts). */
export const accountsProjection: Projection<AccountDoc> = {
  name: 'accounts',
  collection: 'accounts',
  collections: [{ name: 'accounts', indexes: [] }],
  documentIds: (e) => (ACCOUNT_EVENTS.has(e.type) ? [String(e.data.account_id)] : []),
  project(doc, event: RecordedEvent) {
    switch (event.type) {
      case 'account.created': {
        const data = event.data as AccountCreated['data'];
        return {
          id: data.account_id,
          object: 'account',
          name: data.name,
          created_date: formatCreatedDate(new Date(data.created_at)),
          gateways: entriesOf(data.gateways ?? defaultGateways()),
          retry_policy: null,
        };
      }
      case 'account.gateway_configured': {
        if (!doc) return doc;
        const data = event.data as AccountGatewayConfigured['data'];
        const gateways = doc.gateways ?? defaultGatewayEntries();
        return { ...doc, gateways: { ...gateways, [data.mode]: withEntry(gateways[data.mode], { id: data.gateway, connector: data.connector }) } };
      }
      case 'account.gateway_removed': {
        if (!doc) return doc;
        const data = event.data as AccountGatewayRemoved['data'];
        const gateways = doc.gateways ?? defaultGatewayEntries();
        return { ...doc, gateways: { ...gateways, [data.mode]: gateways[data.mode].filter((e) => e.id !== data.gateway) } };
      }
      case 'account.renamed':
        return doc && { ...doc, name: (event.data as AccountRenamed['data']).name };
      case 'account.retry_policy_set': {
        if (!doc) return doc;
        const data = event.data as AccountRetryPolicySet['data'];
        return { ...doc, retry_policy: { retry_days: [...data.retry_days], final_days: data.final_days } };
      }
      default:
        return doc;
    }
  },
};
