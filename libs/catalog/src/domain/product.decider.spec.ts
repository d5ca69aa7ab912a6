import { given } from '#shared/testing/given.js';
import { type ProductCommand, type ProductEvent, productDecider } from './product.decider.js';

const owner: { accountId: string; mode: 'test' | 'live' } = { accountId: 'acct_1', mode: 'test' };
const now = new Date('2026-11-23T10:00:00.000Z');
const created: ProductEvent = {
  type: 'product.created',
  data: {
    id: 'prod_1',
    account_id: 'acct_1',
    is_test: true,
    created_at: now.toISOString(),
    name: 'Plan Oro',
    description: null,
    status: 'active',
    product_merchant_id: null,
    product_invoicing_id: null,
    product_shopA_id: null,
    product_shopB_id: null,
    image: null,
    invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: null },
    meta_data: {},
  },
};
const create = (fields: Extract<ProductCommand, { type: 'CreateProduct' }>['fields']): ProductCommand => ({
  type: 'CreateProduct',
  owner,
  productId: 'prod_1',
  fields,
  now,
});
const update = (changes: Extract<ProductCommand, { type: 'UpdateProduct' }>['changes'], who = owner): ProductCommand => ({
  type: 'UpdateProduct',
  owner: who,
  productId: 'prod_1',
  changes,
  now,
});

describe('product decider', () => {
  test('create: a new product with defaults for everything not given', () => {
    given(productDecider).when(create({ name: '  Plan Oro ' })).then([created]);
  });

  test('create: fields and tax settings are kept', () => {
    given(productDecider)
      .when(create({ name: 'P', invoice_settings: { invoice_tax_percentage: '19' }, meta_data: { a: 'b' } }))
      .then(([e]) => {
        expect(e.type).toBe('product.created');
        expect(e.data).toMatchObject({ invoice_settings: { invoice_tax_id: null, invoice_tax_percentage: '19' }, meta_data: { a: 'b' } });
      });
  });

  test('create: rejects an empty name, a tax percentage out of 0–100, long meta_data values', () => {
    given(productDecider).when(create({ name: ' ' })).thenRejects('parameter_invalid', 'name');
    given(productDecider)
      .when(create({ name: 'P', invoice_settings: { invoice_tax_percentage: '100.5' } }))
      .thenRejects('parameter_invalid', 'invoice_settings[invoice_tax_percentage]');
    given(productDecider)
      .when(create({ name: 'P', invoice_settings: { invoice_tax_percentage: '1e2' } }))
      .thenRejects('parameter_invalid', 'invoice_settings[invoice_tax_percentage]');
    given(productDecider).when(create({ name: 'P', meta_data: { k: 'x'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
  });

  test('create twice is refused', () => {
    given(productDecider, [created]).when(create({ name: 'again' })).thenRejects('invalid_state');
  });

  test('update: records the changes; nothing to change, no event', () => {
    given(productDecider, [created])
      .when(update({ status: 'inactive' }))
      .then([{ type: 'product.updated', data: { id: 'prod_1', changes: { status: 'inactive' } } }]);
    given(productDecider, [created]).when(update({})).then([]);
  });

  test('another account, the other mode, a missing or deleted product: not found', () => {
    given(productDecider, [created]).when(update({ name: 'x' }, { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing');
    given(productDecider, [created]).when(update({ name: 'x' }, { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing');
    given(productDecider).when(update({ name: 'x' })).thenRejects('resource_missing');
    given(productDecider, [created, { type: 'product.deleted', data: { id: 'prod_1' } }])
      .when(update({ name: 'x' }))
      .thenRejects('resource_missing');
  });

  test('delete: refused while prices use the product', () => {
    const del = (priceCount: number): ProductCommand => ({ type: 'DeleteProduct', owner, productId: 'prod_1', priceCount, now });
    given(productDecider, [created]).when(del(2)).thenRejects('invalid_state');
    given(productDecider, [created]).when(del(0)).then([{ type: 'product.deleted', data: { id: 'prod_1' } }]);
  });
});
