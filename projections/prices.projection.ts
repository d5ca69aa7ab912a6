import type { OwnedDoc } from '../libs/platform/src/read-models.js';
import type { Projection } from './runtime/projection.js';
import { TENANT_INDEXES } from './products.projection.js';

/** Placeholder: replaced by the prices projection. */
export const pricesProjection: Projection<OwnedDoc> = {
  name: 'prices',
  category: 'price',
  collection: 'prices',
  collections: [{ name: 'prices', indexes: TENANT_INDEXES }],
  documentIds: () => [],
  project: (doc) => doc,
};
