import { ProductCreated, ProductEvent, type ProductFields, applyProductChanges } from '../libs/catalog/src/domain/product.decider.js';
import { formatCreatedDate } from '../libs/shared/src/dates.js';
import type { OwnedDoc } from '../libs/platform/src/read-models.js';
import type { Projection } from './runtime/projection.js';

export type ProductDoc = OwnedDoc & ProductFields & { object: 'product'; created_date: string };

export const TENANT_INDEXES = [{ fields: ['_account', 'is_test', '_deleted', '_created'] }];

/** Products as GET /v1/products serves them. */
export const productsProjection: Projection<ProductDoc> = {
  name: 'products',
  category: 'product',
  collection: 'products',
  collections: [{ name: 'products', indexes: TENANT_INDEXES }],
  documentIds: (e) => (e.type.startsWith('product.') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as ProductEvent;
    switch (e.type) {
      case 'product.created': {
        const { account_id, created_at, id, is_test, ...fields }: ProductCreated['data'] = e.data;
        return {
          id,
          object: 'product',
          ...fields,
          created_date: formatCreatedDate(new Date(created_at)),
          is_test,
          _account: account_id,
          _created: created_at,
          _deleted: false,
        };
      }
      case 'product.updated':
        return doc && { ...doc, ...applyProductChanges(doc, e.data.changes) };
      case 'product.deleted':
        return doc && { ...doc, _deleted: true };
      default:
        return doc;
    }
  },
};
