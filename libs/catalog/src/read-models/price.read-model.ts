import type { OwnedDoc } from '#platform/read-models.js';
import type { PriceFields } from '../domain/price.decider.js';

/** A price as the `prices` read model holds it (GET /v1/prices). */
export type PriceDoc = OwnedDoc & PriceFields & { object: 'price'; created_date: string };
