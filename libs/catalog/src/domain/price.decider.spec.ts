import { given } from '#shared/testing/given.js';
import type { Owner } from '#shared/owner.js';
import {
  type PriceCreated,
  type PriceEvent,
  type PriceInput,
  type ProductRef,
  priceDecider,
} from './price.decider.js';

const owner: Owner = { accountId: 'acct_1', mode: 'test' };
const now = new Date('2026-11-23T10:00:00.000Z');
const priceId = 'price_1';
const product: ProductRef = { exists: true, deleted: false, owner };

const standard: PriceInput = { product_id: 'prod_1', type: 'recurring', billing_period: 'month', billing_interval: 1, unit_price: '15000' };

const create = (fields: Partial<PriceInput> & Record<string, unknown>, ref: ProductRef = product, who: Owner = owner) => ({
  type: 'CreatePrice' as const,
  owner: who,
  priceId,
  product: ref,
  fields: { ...standard, ...fields } as PriceInput,
  now,
});

/** Drops keys set to undefined, so a test can remove a field of `standard`. */
const without = (...keys: (keyof PriceInput)[]) => Object.fromEntries(keys.map((k) => [k, undefined])) as Partial<PriceInput>;

const created: PriceCreated = {
  type: 'price.created',
  data: {
    id: priceId,
    account_id: 'acct_1',
    is_test: true,
    created_at: '2026-11-23T10:00:00.000Z',
    product_id: 'prod_1',
    type: 'recurring',
    pricing_model: 'standard',
    currency: 'COP',
    unit_price: '15000.00',
    billing_period: 'month',
    billing_interval: 1,
    pricing_tiers: null,
    ntp_pricing: null,
    active: true,
    meta_data: { plan: 'gold' },
  },
};

function createWith(fields: Partial<PriceInput>) {
  const input = { ...standard, ...fields } as Record<string, unknown>;
  for (const k of Object.keys(input)) if (input[k] === undefined) delete input[k];
  return { ...create({}), fields: input as unknown as PriceInput };
}

describe('price decider: create', () => {
  test('a standard recurring price, with defaults (COP, standard, active) and the amount formatted', () => {
    given(priceDecider).when(createWith({ meta_data: { plan: 'gold' } })).then([created]);
  });

  test('currency is stored upper-case and amounts get its minor-unit digits', () => {
    given(priceDecider)
      .when(createWith({ currency: 'usd', unit_price: '9.5' }))
      .then(([e]) => expect(e.data).toMatchObject({ currency: 'USD', unit_price: '9.50' }));
    given(priceDecider)
      .when(createWith({ currency: 'JPY', unit_price: '1200' }))
      .then(([e]) => expect(e.data).toMatchObject({ currency: 'JPY', unit_price: '1200' }));
  });

  test('a one_time price has no billing period or interval', () => {
    given(priceDecider)
      .when(createWith({ type: 'one_time', ...without('billing_period', 'billing_interval'), active: false }))
      .then(([e]) => expect(e.data).toMatchObject({ type: 'one_time', billing_period: null, billing_interval: null, active: false }));
  });

  test('graduated and volume prices carry their tiers, amounts formatted', () => {
    for (const pricing_model of ['graduated', 'volume'] as const) {
      given(priceDecider)
        .when(
          createWith({
            pricing_model,
            ...without('unit_price'),
            pricing_tiers: { tiers: [{ up_to: 10, unit_price: '1000', flat_price: '500.5' }, { up_to: 100, unit_price: '900' }, { up_to: null, unit_price: '0' }] },
          }),
        )
        .then(([e]) =>
          expect(e.data).toMatchObject({
            pricing_model,
            unit_price: null,
            ntp_pricing: null,
            pricing_tiers: {
              tiers: [
                { up_to: 10, unit_price: '1000.00', flat_price: '500.50' },
                { up_to: 100, unit_price: '900.00', flat_price: null },
                { up_to: null, unit_price: '0.00', flat_price: null },
              ],
            },
          }),
        );
    }
  });

  test('a single tier with up_to null is enough', () => {
    given(priceDecider)
      .when(createWith({ pricing_model: 'volume', ...without('unit_price'), pricing_tiers: { tiers: [{ up_to: null, unit_price: '5' }] } }))
      .then(([e]) => expect((e as PriceCreated).data.pricing_tiers).toEqual({ tiers: [{ up_to: null, unit_price: '5.00', flat_price: null }] }));
  });

  test('an ntp price: empty bounds or min ≤ suggested ≤ max', () => {
    given(priceDecider)
      .when(createWith({ pricing_model: 'ntp', ...without('unit_price'), ntp_pricing: {} }))
      .then(([e]) =>
        expect(e.data).toMatchObject({ unit_price: null, pricing_tiers: null, ntp_pricing: { min_amount: null, max_amount: null, suggested_amount: null } }),
      );
    given(priceDecider)
      .when(createWith({ pricing_model: 'ntp', ...without('unit_price'), ntp_pricing: { min_amount: '1000', suggested_amount: '1000', max_amount: '5000.5' } }))
      .then(([e]) => expect((e as PriceCreated).data.ntp_pricing).toEqual({ min_amount: '1000.00', max_amount: '5000.50', suggested_amount: '1000.00' }));
  });

  test('the product must exist, not be deleted, and belong to the same account and mode', () => {
    given(priceDecider).when(create({}, { exists: false, deleted: false, owner: null })).thenRejects('resource_missing', 'product_id');
    given(priceDecider).when(create({}, { ...product, deleted: true })).thenRejects('resource_missing', 'product_id');
    given(priceDecider).when(create({}, { ...product, owner: { accountId: 'acct_2', mode: 'test' } })).thenRejects('resource_missing', 'product_id');
    given(priceDecider).when(create({}, { ...product, owner: { accountId: 'acct_1', mode: 'live' } })).thenRejects('resource_missing', 'product_id');
  });

  test('a price id is used once', () => {
    given(priceDecider, [created]).when(createWith({})).thenRejects('invalid_state');
  });

  test('currency must be ISO 4217', () => {
    given(priceDecider).when(createWith({ currency: 'XYZ' })).thenRejects('parameter_invalid', 'currency');
    given(priceDecider).when(createWith({ currency: 'pesos' })).thenRejects('parameter_invalid', 'currency');
  });

  test('type is required and must be known', () => {
    given(priceDecider).when(createWith(without('type'))).thenRejects('parameter_missing', 'type');
    given(priceDecider).when(createWith({ type: 'weekly' as never })).thenRejects('parameter_invalid', 'type');
  });

  test('recurring needs billing_period and billing_interval ≥ 1', () => {
    given(priceDecider).when(createWith(without('billing_period'))).thenRejects('parameter_missing', 'billing_period');
    given(priceDecider).when(createWith(without('billing_interval'))).thenRejects('parameter_missing', 'billing_interval');
    given(priceDecider).when(createWith({ billing_period: 'fortnight' as never })).thenRejects('parameter_invalid', 'billing_period');
    given(priceDecider).when(createWith({ billing_interval: 0 })).thenRejects('parameter_invalid', 'billing_interval');
    given(priceDecider).when(createWith({ billing_interval: 1.5 })).thenRejects('parameter_invalid', 'billing_interval');
    given(priceDecider)
      .when(createWith({ billing_period: 'month', billing_interval: 3 }))
      .then(([e]) => expect(e.data).toMatchObject({ billing_period: 'month', billing_interval: 3 }));
  });

  test('one_time rejects billing_period and billing_interval', () => {
    given(priceDecider).when(createWith({ type: 'one_time', ...without('billing_interval') })).thenRejects('parameter_invalid', 'billing_period');
    given(priceDecider).when(createWith({ type: 'one_time', ...without('billing_period') })).thenRejects('parameter_invalid', 'billing_interval');
  });

  test('pricing_model must be known', () => {
    given(priceDecider).when(createWith({ pricing_model: 'tiered' as never })).thenRejects('parameter_invalid', 'pricing_model');
  });

  test('standard requires unit_price and rejects pricing_tiers and ntp_pricing', () => {
    given(priceDecider).when(createWith(without('unit_price'))).thenRejects('parameter_missing', 'unit_price');
    given(priceDecider).when(createWith({ pricing_tiers: { tiers: [{ up_to: null, unit_price: '1' }] } })).thenRejects('parameter_invalid', 'pricing_tiers');
    given(priceDecider).when(createWith({ ntp_pricing: {} })).thenRejects('parameter_invalid', 'ntp_pricing');
  });

  test('graduated and volume require pricing_tiers and reject unit_price and ntp_pricing', () => {
    const tiers = { tiers: [{ up_to: null, unit_price: '1' }] };
    for (const pricing_model of ['graduated', 'volume'] as const) {
      given(priceDecider).when(createWith({ pricing_model, ...without('unit_price') })).thenRejects('parameter_missing', 'pricing_tiers');
      given(priceDecider).when(createWith({ pricing_model, pricing_tiers: tiers })).thenRejects('parameter_invalid', 'unit_price');
      given(priceDecider)
        .when(createWith({ pricing_model, ...without('unit_price'), pricing_tiers: tiers, ntp_pricing: {} }))
        .thenRejects('parameter_invalid', 'ntp_pricing');
    }
  });

  test('ntp requires ntp_pricing and rejects unit_price and pricing_tiers', () => {
    given(priceDecider).when(createWith({ pricing_model: 'ntp', ...without('unit_price') })).thenRejects('parameter_missing', 'ntp_pricing');
    given(priceDecider).when(createWith({ pricing_model: 'ntp', ntp_pricing: {} })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider)
      .when(createWith({ pricing_model: 'ntp', ...without('unit_price'), ntp_pricing: {}, pricing_tiers: { tiers: [{ up_to: null, unit_price: '1' }] } }))
      .thenRejects('parameter_invalid', 'pricing_tiers');
  });

  test('tiers: at least one, up_to strictly increasing integers ≥ 1, only and always the last up_to null', () => {
    const tiered = (tiers: unknown[]) =>
      createWith({ pricing_model: 'graduated', ...without('unit_price'), pricing_tiers: { tiers } as PriceInput['pricing_tiers'] });
    given(priceDecider).when(tiered([])).thenRejects('parameter_invalid', 'pricing_tiers[tiers]');
    given(priceDecider).when(tiered([{ up_to: 10, unit_price: '1' }])).thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][up_to]');
    given(priceDecider)
      .when(tiered([{ up_to: null, unit_price: '1' }, { up_to: null, unit_price: '1' }]))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][up_to]');
    given(priceDecider)
      .when(tiered([{ up_to: 10, unit_price: '1' }, { up_to: 10, unit_price: '1' }, { up_to: null, unit_price: '1' }]))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][1][up_to]');
    given(priceDecider)
      .when(tiered([{ up_to: 10, unit_price: '1' }, { up_to: 5, unit_price: '1' }, { up_to: null, unit_price: '1' }]))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][1][up_to]');
    given(priceDecider).when(tiered([{ up_to: 0, unit_price: '1' }, { up_to: null, unit_price: '1' }])).thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][up_to]');
    given(priceDecider).when(tiered([{ up_to: 2.5, unit_price: '1' }, { up_to: null, unit_price: '1' }])).thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][up_to]');
    given(priceDecider).when(tiered([{ unit_price: '1' }])).thenRejects('parameter_missing', 'pricing_tiers[tiers][0][up_to]');
    given(priceDecider).when(tiered([{ up_to: null }])).thenRejects('parameter_missing', 'pricing_tiers[tiers][0][unit_price]');
  });

  test('tier amounts are decimal strings ≥ 0 with the currency digits', () => {
    const tiered = (tiers: unknown[], currency = 'COP') =>
      createWith({ currency, pricing_model: 'volume', ...without('unit_price'), pricing_tiers: { tiers } as PriceInput['pricing_tiers'] });
    given(priceDecider)
      .when(tiered([{ up_to: 5, unit_price: '1' }, { up_to: null, unit_price: '1.001' }]))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][1][unit_price]');
    given(priceDecider)
      .when(tiered([{ up_to: 5, unit_price: '-1' }, { up_to: null, unit_price: '1' }]))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][unit_price]');
    given(priceDecider)
      .when(tiered([{ up_to: 5, unit_price: '1', flat_price: 'ten' }, { up_to: null, unit_price: '1' }]))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][flat_price]');
    given(priceDecider)
      .when(tiered([{ up_to: null, unit_price: '100', flat_price: '0.5' }], 'JPY'))
      .thenRejects('parameter_invalid', 'pricing_tiers[tiers][0][flat_price]');
  });

  test('unit_price: a decimal string ≥ 0 with at most the currency digits (COP 2, JPY 0)', () => {
    given(priceDecider).when(createWith({ unit_price: '-1' })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider).when(createWith({ unit_price: '1e3' })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider).when(createWith({ unit_price: 15000 as never })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider).when(createWith({ unit_price: '1.001' })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider).when(createWith({ currency: 'JPY', unit_price: '100.5' })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider).when(createWith({ currency: 'JPY', unit_price: '100.0' })).thenRejects('parameter_invalid', 'unit_price');
    given(priceDecider)
      .when(createWith({ unit_price: '0' }))
      .then(([e]) => expect((e as PriceCreated).data.unit_price).toBe('0.00'));
    given(priceDecider)
      .when(createWith({ unit_price: '12345678901234567890.99' }))
      .then(([e]) => expect((e as PriceCreated).data.unit_price).toBe('12345678901234567890.99'));
  });

  test('ntp amounts: decimal strings ≥ 0 with the currency digits, min ≤ suggested ≤ max', () => {
    const ntp = (ntp_pricing: PriceInput['ntp_pricing']) => createWith({ pricing_model: 'ntp', ...without('unit_price'), ntp_pricing });
    given(priceDecider).when(ntp({ min_amount: '-5' })).thenRejects('parameter_invalid', 'ntp_pricing[min_amount]');
    given(priceDecider).when(ntp({ max_amount: '5.123' })).thenRejects('parameter_invalid', 'ntp_pricing[max_amount]');
    given(priceDecider).when(ntp({ suggested_amount: 'abc' })).thenRejects('parameter_invalid', 'ntp_pricing[suggested_amount]');
    given(priceDecider).when(ntp({ min_amount: '10', max_amount: '9.99' })).thenRejects('parameter_invalid', 'ntp_pricing[min_amount]');
    given(priceDecider).when(ntp({ min_amount: '10', suggested_amount: '9' })).thenRejects('parameter_invalid', 'ntp_pricing[suggested_amount]');
    given(priceDecider).when(ntp({ max_amount: '10', suggested_amount: '10.01' })).thenRejects('parameter_invalid', 'ntp_pricing[suggested_amount]');
    given(priceDecider)
      .when(ntp({ suggested_amount: '2000' }))
      .then(([e]) => expect((e as PriceCreated).data.ntp_pricing).toEqual({ min_amount: null, max_amount: null, suggested_amount: '2000.00' }));
  });

  test('meta_data is checked', () => {
    given(priceDecider).when(createWith({ meta_data: { k: 'v'.repeat(256) } })).thenRejects('parameter_invalid', 'meta_data[k]');
    given(priceDecider).when(createWith({ meta_data: 'x' as never })).thenRejects('parameter_invalid', 'meta_data');
  });
});

describe('price decider: update and delete', () => {
  const update = (changes: object, who: Owner = owner) => ({ type: 'UpdatePrice' as const, owner: who, priceId, changes, now });
  const remove = (who: Owner = owner) => ({ type: 'DeletePrice' as const, owner: who, priceId, now });
  const deleted: PriceEvent = { type: 'price.deleted', data: { id: priceId } };

  test('active and meta_data change; only what actually changes is recorded', () => {
    given(priceDecider, [created])
      .when(update({ active: false, meta_data: { plan: 'gold', tier: '1' } }))
      .then([{ type: 'price.updated', data: { id: priceId, changes: { active: false, meta_data: { tier: '1' } } } }]);
    given(priceDecider, [created])
      .when(update({ meta_data: { plan: '', gone: '' } }))
      .then([{ type: 'price.updated', data: { id: priceId, changes: { meta_data: { plan: '' } } } }]);
  });

  test('nothing changed: no event', () => {
    given(priceDecider, [created]).when(update({})).then([]);
    given(priceDecider, [created]).when(update({ active: true, meta_data: { plan: 'gold' } })).then([]);
  });

  test('the state follows the updates', () => {
    const events: PriceEvent[] = [created, { type: 'price.updated', data: { id: priceId, changes: { active: false, meta_data: { plan: '' } } } }];
    given(priceDecider, events).when(update({ active: false, meta_data: { plan: '' } })).then([]);
    given(priceDecider, events)
      .when(update({ active: true }))
      .then([{ type: 'price.updated', data: { id: priceId, changes: { active: true } } }]);
  });

  test('update checks its fields', () => {
    given(priceDecider, [created]).when(update({ active: 'no' })).thenRejects('parameter_invalid', 'active');
    given(priceDecider, [created]).when(update({ meta_data: { k: 1 } })).thenRejects('parameter_invalid', 'meta_data[k]');
  });

  test('delete records price.deleted', () => {
    given(priceDecider, [created]).when(remove()).then([deleted]);
  });

  test('unknown, deleted, or another account or mode: not found', () => {
    given(priceDecider).when(update({ active: false })).thenRejects('resource_missing', 'id');
    given(priceDecider).when(remove()).thenRejects('resource_missing', 'id');
    given(priceDecider, [created, deleted]).when(update({ active: false })).thenRejects('resource_missing', 'id');
    given(priceDecider, [created, deleted]).when(remove()).thenRejects('resource_missing', 'id');
    for (const who of [{ accountId: 'acct_2', mode: 'test' as const }, { accountId: 'acct_1', mode: 'live' as const }]) {
      given(priceDecider, [created]).when(update({ active: false }, who)).thenRejects('resource_missing');
      given(priceDecider, [created]).when(remove(who)).thenRejects('resource_missing');
    }
  });
});
