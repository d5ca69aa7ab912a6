import { type PriceCreated, type PriceEvent, applyPriceChanges } from '#catalog/domain/price.decider.js';
import type { Projection } from '#projection-runtime/projection.js';
import type { PriceDoc } from '#catalog/read-models/price.read-model.js';
import { newOwnedDoc, TENANT_INDEXES } from '#platform/owned-doc.js';

/**
 * Prices as GET /v1/prices serves them. Amounts arrive in the events already formatted to the
 * currency's minor-unit digits. `product_id` + `_deleted` let product deletion count live prices.
 */
export const pricesProjection: Projection<PriceDoc> = {
  name: 'prices',
  category: 'price',
  collection: 'prices',
  collections: [{ name: 'prices', indexes: [...TENANT_INDEXES, { fields: ['product_id', '_deleted'] }] }],
  documentIds: (e) => (e.type.startsWith('price.') ? [String(e.data.id)] : []),
  project(doc, event) {
    const e = event as unknown as PriceEvent;
    switch (e.type) {
      case 'price.created': {
        const { id, account_id, is_test, created_at, ...fields }: PriceCreated['data'] = e.data;
        return newOwnedDoc('price', { id, account_id, is_test, created_at }, fields) as PriceDoc;
      }
      case 'price.updated':
        return doc && { ...doc, ...applyPriceChanges(doc, e.data.changes) };
      case 'price.deleted':
        return doc && { ...doc, _deleted: true };
      default:
        return doc;
    }
  },
};
