import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { type ListPage, listPage } from '#http/list.js';
import { notFound } from '#shared/errors.js';
import { GATEWAY_METHODS, type SimulatedGateway } from '#payments/domain/gateways.js';
import { type AccountDoc, type ConfiguredGatewayEntry, defaultGatewayEntries } from '../read-models/account.read-model.js';
import type { Mode } from '../domain/api-key.js';

export const GATEWAYS_URL = '/v1/account/gateways';

/** A configured gateway as the API shows it. `offline` takes free-form method names, so it lists none. */
export interface GatewayObject {
  object: 'gateway';
  id: string;
  connector: string;
  methods: string[];
  mode: Mode;
}

export function gatewayObject(entry: ConfiguredGatewayEntry, mode: Mode): GatewayObject {
  const methods = (GATEWAY_METHODS as Record<string, readonly string[]>)[entry.id as SimulatedGateway] ?? [];
  return { object: 'gateway', id: entry.id, connector: entry.connector, methods: [...methods], mode };
}

/** The account's configured gateways in the owner's mode, from the accounts read model. */
export async function readConfiguredGateways(store: ReadStore, owner: Owner): Promise<GatewayObject[]> {
  const doc = await store.get<AccountDoc>('accounts', owner.accountId);
  if (!doc) throw notFound('account', owner.accountId, null);
  return (doc.gateways ?? defaultGatewayEntries())[owner.mode].map((e) => gatewayObject(e, owner.mode));
}

export class ListGatewaysQuery {
  constructor(readonly owner: Owner) {}
}

/** Every gateway configured on the caller's account in the caller's mode, in catalogue order (one page). */
@QueryHandler(ListGatewaysQuery)
export class ListGatewaysHandler implements IQueryHandler<ListGatewaysQuery, ListPage<GatewayObject>> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner }: ListGatewaysQuery): Promise<ListPage<GatewayObject>> {
    const data = await readConfiguredGateways(this.readModels.store, owner);
    return listPage(GATEWAYS_URL, data, data.length);
  }
}
