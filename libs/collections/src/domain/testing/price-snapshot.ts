import type { PriceSnapshot } from '../pricing.js';

/** For decider specs: a monthly standard COP price snapshot, with any field overridden. */
export const priceSnapshot = (unit_price: string | null, over: Partial<PriceSnapshot> = {}): PriceSnapshot => ({
  id: 'price_monthly',
  product_id: 'prod_1',
  type: 'recurring',
  pricing_model: 'standard',
  currency: 'COP',
  unit_price,
  billing_period: 'month',
  billing_interval: 1,
  pricing_tiers: null,
  ntp_pricing: null,
  active: true,
  meta_data: {},
  ...over,
});
