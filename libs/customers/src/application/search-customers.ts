import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { type Owner, ReadModels, SEARCH_CAP, type SearchMatch } from '#platform/read-models.js';
import { searchWords } from '../domain/customer-search.js';
import { CUSTOMER_SEARCH, type CustomerSearchDoc } from '../read-models/customer-search.read-model.js';

/** Term documents read per form of a word: a word this common is too short to narrow (the answer is capped). */
const TERMS_PER_WORD = 1000;

/** An id as typed: `cus_0Vc5…` (a prefix of one). */
export const ID_LIKE = /^[a-z]{2,5}_[A-Za-z0-9]*$/;

/**
 * The dashboard's customer search (issue 31 §1): the customers whose id starts with `q` (`cus_0Vc`),
 * else those for whom every word of `q` starts one of their search terms (e-mail, its local part, a
 * word of the name, the document number; lower case, without accents: customers.projection.ts keeps
 * them). At most SEARCH_CAP customers (`capped` says more matched).
 */
export class SearchCustomersQuery {
  constructor(
    readonly owner: Owner,
    readonly q: string,
  ) {}
}

@QueryHandler(SearchCustomersQuery)
export class SearchCustomersHandler implements IQueryHandler<SearchCustomersQuery, SearchMatch> {
  constructor(private readonly readModels: ReadModels) {}

  async execute({ owner, q }: SearchCustomersQuery): Promise<SearchMatch> {
    const typed = q.trim();
    if (ID_LIKE.test(typed)) {
      if (!typed.startsWith('cus_')) return { field: 'id', ids: [], capped: false };
      const ids = await this.readModels.idsWithPrefix('customers', owner, typed, SEARCH_CAP + 1);
      return { field: 'id', ids: ids.slice(0, SEARCH_CAP), capped: ids.length > SEARCH_CAP };
    }
    let found: Set<string> | null = null;
    let capped = false;
    for (const forms of searchWords(typed)) {
      const word = new Set<string>();
      for (const form of forms) {
        const terms = await this.readModels.store.find<CustomerSearchDoc>(CUSTOMER_SEARCH, {
          where: { _account: owner.accountId, is_test: owner.mode === 'test' },
          prefix: { field: 'term', value: form },
          orderBy: { field: 'term', direction: 'asc' },
          limit: TERMS_PER_WORD,
        });
        if (terms.length === TERMS_PER_WORD) capped = true;
        for (const t of terms) if (!found || found.has(t.customer)) word.add(t.customer);
      }
      found = word;
      if (found.size === 0) break;
    }
    const ids = [...(found ?? [])];
    return { field: 'id', ids: ids.slice(0, SEARCH_CAP), capped: capped || ids.length > SEARCH_CAP };
  }
}
