import { given } from '#shared/testing/given.js';
import { priceSnapshot } from '#collections/domain/testing/price-snapshot.js';
import { type StorefrontCommand, storefrontDecider } from './storefront.decider.js';

const owner = { accountId: 'acct_1', mode: 'test' as const };
const now = new Date('2026-11-23T10:00:00.000Z');
const item = (over: object = {}) => ({ price: priceSnapshot('49900', over), product: { id: 'prod_1', name: 'Plan' } });
const create = (over: Partial<Extract<StorefrontCommand, { type: 'CreateStorefront' }>> = {}): StorefrontCommand => ({
  type: 'CreateStorefront', owner, storefrontId: 'sf_1', url: 'http://x/checkout/sf/sf_1', name: 'Tienda', items: [item(), item({ id: 'price_fee', type: 'one_time', billing_period: null, billing_interval: null })], settings: {}, now, ...over,
});

describe('storefront decider', () => {
  test('create: several prices, active by default', () => {
    given(storefrontDecider).when(create()).then(([e]) => expect(e.data).toMatchObject({ id: 'sf_1', name: 'Tienda', active: true, cta_text: null, items: [expect.anything(), expect.anything()] }));
  });

  test('recurring prices share one frequency; a price is listed once; a name is required', () => {
    given(storefrontDecider).when(create({ items: [item(), item({ id: 'price_w', billing_period: 'week' })] })).thenRejects('parameter_invalid', 'items');
    given(storefrontDecider).when(create({ items: [item(), item()] })).thenRejects('parameter_invalid', 'items[1][price]');
    given(storefrontDecider).when(create({ name: ' ' })).thenRejects('parameter_invalid', 'name');
    given(storefrontDecider).when(create({ items: [] })).thenRejects('parameter_missing', 'items');
    given(storefrontDecider).when(create({ ctaText: 'Comprar' })).thenRejects('parameter_invalid', 'cta_text');
  });

  test('update: deactivate, rename; another account sees nothing', () => {
    const past = storefrontDecider.decide(create(), storefrontDecider.initialState);
    given(storefrontDecider, past).when({ type: 'UpdateStorefront', owner, storefrontId: 'sf_1', changes: { active: false, name: 'Otra' }, now }).then([{ type: 'storefront.updated', data: { id: 'sf_1', changes: { active: false, name: 'Otra' } } }]);
    given(storefrontDecider, past).when({ type: 'UpdateStorefront', owner: { accountId: 'acct_2', mode: 'test' }, storefrontId: 'sf_1', changes: { active: false }, now }).thenRejects('resource_missing');
  });
});
