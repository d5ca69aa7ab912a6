import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { CollectionDoc } from '../read-models/collection.read-model.js';

export class GetCollectionQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetCollectionQuery)
export class GetCollectionHandler implements IQueryHandler<GetCollectionQuery, CollectionDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetCollectionQuery): Promise<CollectionDoc> {
    return this.readModels.get<CollectionDoc>('collections', 'collection', id, owner);
  }
}
