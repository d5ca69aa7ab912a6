import type { RecordedEvent } from '#event-store/event-store.port.js';
import {
  type AccountCreated,
  type AccountGatewayConfigured,
  type AccountGatewayRemoved,
  type AccountRenamed,
  type AccountRetryPolicySet,
  defaultGateways,
  inCatalogueOrder,
} from '#accounts/domain/account.decider.js';
import { formatCreatedDate } from '#shared/dates.js';
import type { Projection } from '#projection-runtime/projection.js';
import { type AccountDoc, type ConfiguredGatewayEntry, defaultGatewayEntries, gatewayEntriesOf } from '#accounts/read-models/account.read-model.js';

const ACCOUNT_EVENTS = new Set(['account.created', 'account.gateway_configured', 'account.gateway_removed', 'account.retry_policy_set', 'account.renamed']);

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
          gateways: gatewayEntriesOf(data.gateways ?? defaultGateways()),
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
