import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels, SEARCH_CAP, type SearchMatch } from '#platform/read-models.js';
import { ID_LIKE, SearchCustomersQuery } from '#customers/application/search-customers.js';

/**
 * The dashboard's search of the subscriptions (issue 31 §1): those whose id starts with `q` (`sub_0Vc`),
 * else those of the customers the search finds (SearchCustomersQuery: e-mail, name, document, or a
 * `cus_` id prefix), at most SEARCH_CAP customers (`capped` says more matched).
 */
export class SearchSubscriptionsQuery {
  constructor(
    readonly owner: Owner,
    readonly q: string,
  ) {}
}

@QueryHandler(SearchSubscriptionsQuery)
export class SearchSubscriptionsHandler implements IQueryHandler<SearchSubscriptionsQuery, SearchMatch> {
  constructor(
    private readonly readModels: ReadModels,
    private readonly queries: QueryBus,
  ) {}

  async execute({ owner, q }: SearchSubscriptionsQuery): Promise<SearchMatch> {
    const typed = q.trim();
    if (ID_LIKE.test(typed) && typed.startsWith('sub_')) {
      const ids = await this.readModels.idsWithPrefix('subscriptions', owner, typed, SEARCH_CAP + 1);
      return { field: 'id', ids: ids.slice(0, SEARCH_CAP), capped: ids.length > SEARCH_CAP };
    }
    const customers = await this.queries.execute<SearchCustomersQuery, SearchMatch>(new SearchCustomersQuery(owner, typed));
    return { field: 'customer', ids: customers.ids, capped: customers.capped };
  }
}
