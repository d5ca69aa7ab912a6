import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { DomainError } from '#shared/errors.js';
import { gatewayNotConfiguredMessage } from '#payments/domain/gateways.js';
import { type GatewayObject, readConfiguredGateways } from './list-gateways.js';

export class GetGatewayQuery {
  constructor(
    readonly owner: Owner,
    readonly gateway: string,
  ) {}
}

/** One configured gateway of the caller's account and mode (404 when it is not configured). */
@QueryHandler(GetGatewayQuery)
export class GetGatewayHandler implements IQueryHandler<GetGatewayQuery, GatewayObject> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, gateway }: GetGatewayQuery): Promise<GatewayObject> {
    const found = (await readConfiguredGateways(this.readModels.store, owner)).find((g) => g.id === gateway);
    if (!found) throw new DomainError('resource_missing', gatewayNotConfiguredMessage(gateway), 'gateway', 404);
    return found;
  }
}
