import { customersProjection } from './customers.projection.js';
import { pricesProjection } from './prices.projection.js';
import { productsProjection } from './products.projection.js';
import type { Projection } from './runtime/projection.js';

/**
 * The projections of public resources (products, prices, customers, …). Each also tells the event
 * feed what `data.object` looks like after one of its events (matched by stream category).
 */
export function publicResourceProjections(): Projection[] {
  return [productsProjection, pricesProjection, customersProjection] as Projection[];
}
