import type { OwnedDoc } from '../libs/platform/src/read-models.js';
import type { Projection } from './runtime/projection.js';
import { TENANT_INDEXES } from './products.projection.js';

/** Placeholder: replaced by the customers projection. */
export const customersProjection: Projection<OwnedDoc> = {
  name: 'customers',
  category: 'customer',
  collection: 'customers',
  collections: [{ name: 'customers', indexes: TENANT_INDEXES }],
  documentIds: () => [],
  project: (doc) => doc,
};
