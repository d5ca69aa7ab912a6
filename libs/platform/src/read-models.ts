import { Inject, Injectable } from '@nestjs/common';
import type { Owner } from '#shared/owner.js';
import type { ReadStore, Scalar } from '#read-store/read-store.port.js';
import { toPublic } from '#projection-runtime/projection.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { type ListPage, listPage } from '#http/list.js';
import { READ_STORE } from './tokens.js';

/** Fields every tenant-owned read-model document carries. */
export interface OwnedDoc {
  id: string;
  is_test: boolean;
  _account: string;
  /** Sort key of lists: creation time (ISO 8601). */
  _created: string;
  _deleted?: boolean;
  [key: string]: unknown;
}

export type { Owner } from '#shared/owner.js';

/** Most documents a dashboard search narrows a list to (ids of customers, or of the listed documents). */
export const SEARCH_CAP = 200;

/**
 * A dashboard search's answer (issue 31 §1): the list keeps the documents whose `field` (`id`, or
 * `customer`) is one of `ids`; `capped` when more matched than SEARCH_CAP and only the first were kept.
 */
export interface SearchMatch {
  field: 'id' | 'customer';
  ids: string[];
  capped: boolean;
}

/** A list's equalities narrowed by a search: an equality already on the field stays only if it is among the ids. */
export function narrowedBy(where: Record<string, Scalar | Scalar[]>, match: SearchMatch | undefined): Record<string, Scalar | Scalar[]> {
  if (!match) return where;
  const given = where[match.field];
  const ids = given === undefined ? match.ids : match.ids.filter((id) => id === given);
  return { ...where, [match.field]: ids };
}

/**
 * Reads of tenant-owned documents: another account's object, or the other mode's, is "not found".
 */
@Injectable()
export class ReadModels {
  constructor(@Inject(READ_STORE) readonly store: ReadStore) {}

  async find<T extends OwnedDoc>(collection: string, id: string, owner: Owner): Promise<T | null> {
    const doc = await this.store.get<T>(collection, id);
    if (!doc || doc._account !== owner.accountId || doc.is_test !== (owner.mode === 'test') || doc._deleted) return null;
    return doc;
  }

  /** The public document, or a 404 naming the resource. */
  async get<T extends OwnedDoc>(collection: string, resource: string, id: string, owner: Owner): Promise<T> {
    const doc = await this.find<T>(collection, id, owner);
    if (!doc) throw notFound(resource, id);
    return toPublic(doc);
  }

  /** The ids of the owner's documents starting with `prefix` (`sub_0Vc`), newest first, at most `limit`. */
  async idsWithPrefix(collection: string, owner: Owner, prefix: string, limit: number): Promise<string[]> {
    const rows = await this.store.find<OwnedDoc>(collection, {
      where: { _account: owner.accountId, is_test: owner.mode === 'test', _deleted: false },
      prefix: { field: 'id', value: prefix },
      orderBy: { field: '_created', direction: 'desc' },
      limit,
    });
    return rows.map((r) => r.id);
  }

  async list<T extends OwnedDoc>(
    collection: string,
    url: string,
    owner: Owner,
    query: { limit?: number; starting_after?: string },
    where: Record<string, Scalar | Scalar[]> = {},
  ): Promise<ListPage<T>> {
    const limit = query.limit ?? 10;
    let after: { value: Scalar; id: string } | undefined;
    if (query.starting_after) {
      const cursor = await this.find<T>(collection, query.starting_after, owner);
      if (!cursor) throw invalidParam('starting_after', `No such object: '${query.starting_after}'`);
      after = { value: cursor._created, id: cursor.id };
    }
    const rows = await this.store.find<T>(collection, {
      where: { _account: owner.accountId, is_test: owner.mode === 'test', _deleted: false, ...where },
      orderBy: { field: '_created', direction: 'desc' },
      after,
      limit: limit + 1,
    });
    return listPage(url, rows.map((r) => toPublic(r)), limit);
  }
}
