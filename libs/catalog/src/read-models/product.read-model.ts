import type { OwnedDoc } from '#platform/read-models.js';
import type { ProductFields } from '../domain/product.decider.js';

/** A product as the `products` read model holds it (GET /v1/products). */
export type ProductDoc = OwnedDoc & ProductFields & { object: 'product'; created_date: string };
