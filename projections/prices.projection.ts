import { type PriceCreated, type PriceEvent, type PriceFields, applyPriceChanges } from '../libs/catalog/src/domain/price.decider.js';
import { formatCreatedDate } from '../libs/shared/src/dates.js';
import type { OwnedDoc } from '../libs/platform/src/read-models.js';
import type { Projection } from './runtime/projection.js';
import { TENANT_INDEXES } from './products.projection.js';

export type PriceDoc = OwnedDoc & PriceFields & { object: 'price'; created_date: string };

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
        const d: PriceCreated['data'] = e.data;
        return {
          id: d.id,
          object: 'price',
          product_id: d.product_id,
          type: d.type,
          pricing_model: d.pricing_model,
          currency: d.currency,
          unit_price: d.unit_price,
          billing_period: d.billing_period,
          billing_interval: d.billing_interval,
          pricing_tiers: d.pricing_tiers,
          ntp_pricing: d.ntp_pricing,
          active: d.active,
          meta_data: d.meta_data,
          created_date: formatCreatedDate(new Date(d.created_at)),
          is_test: d.is_test,
          _account: d.account_id,
          _created: d.created_at,
          _deleted: false,
        };
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
