import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { ListPage } from '#http/list.js';
import type { TestClockDoc } from '../read-models/test-clock.read-model.js';

export class ListTestClocksQuery {
  constructor(
    readonly owner: Owner,
    readonly params: { limit?: number; starting_after?: string },
  ) {}
}

/** The account's test clocks (test mode), newest first; deleted ones are left out. */
@QueryHandler(ListTestClocksQuery)
export class ListTestClocksHandler implements IQueryHandler<ListTestClocksQuery, ListPage<TestClockDoc>> {
  constructor(private readonly readModels: ReadModels) {}

  execute({ owner, params }: ListTestClocksQuery): Promise<ListPage<TestClockDoc>> {
    return this.readModels.list<TestClockDoc>('test_clocks', '/v1/test_helpers/test_clocks', owner, params);
  }
}
