import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ReadModels, type Owner } from '#platform/read-models.js';
import { invalidParam } from '#shared/errors.js';
import { type ListPage, listPage } from '#http/list.js';
import { type EventWithActor, type FeedEntry, feedHorizon, type PublicEvent, withinHorizon } from '../read-models/event.read-model.js';
import { toPublic } from '#projection-runtime/projection.js';
import type { Scalar } from '#read-store/read-store.port.js';

export interface EventFilter {
  limit?: number;
  starting_after?: string;
  type?: string;
  object_id?: string;
  /** Events of a customer and of every object that names it (`customer` field). */
  customer?: string;
  /** Events of a subscription and of its collections, transactions and charges (its history). */
  subscription?: string;
}

export class ListEventsQuery {
  constructor(
    readonly owner: Owner,
    readonly filter: EventFilter,
    readonly url: string,
    /** `actors`: each entry also says who caused it (`actor`), for the dashboard's timelines; never for the API. */
    readonly options: { actors?: boolean } = {},
  ) {}
}

/**
 * The feed pages forward in the global order (oldest first): a consumer that starts without a
 * cursor and passes the last id it saw as `starting_after` sees every event once, in order.
 */
@QueryHandler(ListEventsQuery)
export class ListEventsHandler implements IQueryHandler<ListEventsQuery, ListPage<PublicEvent>> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, filter, url, options }: ListEventsQuery): Promise<ListPage<PublicEvent | EventWithActor>> {
    const limit = filter.limit ?? 10;
    const where: Record<string, Scalar> = { _account: owner.accountId, is_test: owner.mode === 'test' };
    if (filter.type) {
      if (filter.type.endsWith('.*')) where._type_prefix = filter.type.slice(0, -2);
      else where.type = filter.type;
    }
    if (filter.object_id) where._object_id = filter.object_id;
    if (filter.subscription) where._subscription = filter.subscription;
    if (filter.customer) where._customer = filter.customer;
    let after: { value: Scalar; id: string } | undefined;
    if (filter.starting_after) {
      const cursor = await this.readModels.store.get<FeedEntry>('events', filter.starting_after);
      if (!cursor || cursor._account !== owner.accountId || cursor.is_test !== (owner.mode === 'test')) {
        throw invalidParam('starting_after', `No such event: '${filter.starting_after}'`);
      }
      after = { value: cursor._seq, id: cursor.id };
    }
    // The horizon first: an entry written after it was read is past it, never a gap behind the page.
    const horizon = await feedHorizon(this.readModels.store);
    const rows = await this.readModels.store.find<FeedEntry>('events', {
      where,
      orderBy: { field: '_seq', direction: 'asc' },
      after,
      limit: limit + 1,
    });
    const shown = (r: FeedEntry): PublicEvent | EventWithActor => (options?.actors ? { ...(toPublic(r) as PublicEvent), actor: r._actor ?? null } : (toPublic(r) as PublicEvent));
    return listPage(url, withinHorizon(rows, horizon).map(shown), limit);
  }
}
