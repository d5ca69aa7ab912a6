import { ProductCreated, ProductEvent, applyProductChanges } from '#catalog/domain/product.decider.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { ProductDoc } from '#catalog/read-models/product.read-model.js';

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
        return newOwnedDoc('product', { id, account_id, is_test, created_at }, fields) as ProductDoc;
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
