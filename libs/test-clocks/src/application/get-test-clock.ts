import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { TestClockDoc } from '../read-models/test-clock.read-model.js';

export class GetTestClockQuery {
  constructor(
    readonly owner: Owner,
    readonly id: string,
  ) {}
}

@QueryHandler(GetTestClockQuery)
export class GetTestClockHandler implements IQueryHandler<GetTestClockQuery, TestClockDoc> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, id }: GetTestClockQuery): Promise<TestClockDoc> {
    return this.readModels.get<TestClockDoc>('test_clocks', 'test_clock', id, owner);
  }
}
