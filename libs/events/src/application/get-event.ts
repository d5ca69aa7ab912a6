import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ReadModels, type Owner } from '#platform/read-models.js';
import { notFound } from '#shared/errors.js';
import type { FeedEntry, PublicEvent } from '../read-models/event.read-model.js';
import { toPublic } from '#projection-runtime/projection.js';

export class GetEventQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetEventQuery)
export class GetEventHandler implements IQueryHandler<GetEventQuery, PublicEvent> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, id }: GetEventQuery): Promise<PublicEvent> {
    const entry = await this.readModels.store.get<FeedEntry>('events', id);
    if (!entry || entry._account !== owner.accountId || entry.is_test !== (owner.mode === 'test')) throw notFound('event', id);
    return toPublic(entry);
  }
}
