import { describe, expect, test } from '@jest/globals';
import { priceSnapshot } from './testing/price-snapshot.js';
import { DomainError } from '#shared/errors.js';
import { currency } from '#shared/money.js';
import type { ExchangeRate } from '../exchange-rates/exchange-rates.port.js';
import { type Discount, type Item, type LineInput, type PriceSnapshot, checkNtpAmount, linePrice, priceLine, totals } from './pricing.js';

const COP = currency('COP')!;
const USD = currency('USD')!;
const JPY = currency('JPY')!;

const standard = (unit_price: string, over: Partial<PriceSnapshot> = {}): PriceSnapshot => priceSnapshot(unit_price, { id: 'price_std', ...over });

/** Tiers: 1–5 at 10000; 6–10 at 8000 plus a flat 5000; 11+ at 6000 plus a flat 2000. */
const TIERS = {
  tiers: [
    { up_to: 5, unit_price: '10000.00', flat_price: null },
    { up_to: 10, unit_price: '8000.00', flat_price: '5000.00' },
    { up_to: null, unit_price: '6000.00', flat_price: '2000.00' },
  ],
};
const graduated = standard('0', { id: 'price_grad', pricing_model: 'graduated', unit_price: null, pricing_tiers: TIERS });
const volume = standard('0', { id: 'price_vol', pricing_model: 'volume', unit_price: null, pricing_tiers: TIERS });
const ntp = (ntp_pricing: PriceSnapshot['ntp_pricing']) =>
  standard('0', { id: 'price_ntp', pricing_model: 'ntp', unit_price: null, type: 'one_time', billing_period: null, billing_interval: null, ntp_pricing });

const product = { id: 'prod_1', name: 'Plan Pro' };
const rate = (from: string, to: string, value: string): ExchangeRate => ({ from, to, rate: value, as_of: '2026-01-31T10:00:00.000Z', source: 'table' });
const line = (price: PriceSnapshot, quantity: number, over: Partial<LineInput> = {}): LineInput => ({ id: 'si_1', price, product, quantity, rate: null, ...over });
const item = (subtotal: string, id = 'si_1'): Item => ({ id, name: 'x', unit_price: subtotal, subtotal, total: subtotal, quantity: 1, product, price: standard(subtotal) });
const discount = (id: string, amount: string | null, percent: string | null): Discount => ({ id, code: id.toUpperCase(), amount, percent });

describe('linePrice: standard', () => {
  test('unit price times quantity, unrounded', () => {
    expect(linePrice(standard('59500.00'), 2).toFixed()).toBe('119000');
    expect(linePrice(standard('0.333'), 3).toFixed()).toBe('0.999');
    expect(linePrice(standard('59500.00'), 0).toFixed()).toBe('0');
  });
});

describe('linePrice: graduated (each tier prices the units inside it)', () => {
  test.each([
    // 0 units: no tier is touched, no flat fee.
    [0, '0'],
    // 1 unit: 1 × 10000 = 10000 (tier 1 has no flat fee).
    [1, '10000'],
    // 5 units: 5 × 10000 = 50000; tier 2 holds no unit, so its flat 5000 is not charged.
    [5, '50000'],
    // 6 units: 5 × 10000 + (1 × 8000 + 5000) = 50000 + 13000 = 63000.
    [6, '63000'],
    // 10 units: 5 × 10000 + (5 × 8000 + 5000) = 50000 + 45000 = 95000.
    [10, '95000'],
    // 12 units: 50000 + 45000 + (2 × 6000 + 2000) = 50000 + 45000 + 14000 = 109000.
    [12, '109000'],
  ])('%i units cost %s', (quantity, expected) => {
    expect(linePrice(graduated, quantity).toFixed()).toBe(expected);
  });
});

describe('linePrice: volume (the tier that holds the whole quantity prices every unit)', () => {
  test.each([
    [0, '0'],
    // 5 units fall in tier 1: 5 × 10000 = 50000 (no flat fee).
    [5, '50000'],
    // 6 units fall in tier 2: 6 × 8000 + 5000 = 48000 + 5000 = 53000.
    [6, '53000'],
    // 10 units (the inclusive bound of tier 2): 10 × 8000 + 5000 = 85000.
    [10, '85000'],
    // 12 units fall in the last tier: 12 × 6000 + 2000 = 72000 + 2000 = 74000.
    [12, '74000'],
  ])('%i units cost %s', (quantity, expected) => {
    expect(linePrice(volume, quantity).toFixed()).toBe(expected);
  });
});

describe('linePrice: ntp (the customer chooses the amount)', () => {
  test('the chosen amount, else the suggested one, times the quantity', () => {
    const p = ntp({ min_amount: '5000.00', max_amount: '100000.00', suggested_amount: '20000.00' });
    expect(linePrice(p, 1, '25000.00').toFixed()).toBe('25000');
    expect(linePrice(p, 2, '25000.00').toFixed()).toBe('50000');
    expect(linePrice(p, 1).toFixed()).toBe('20000');
    expect(linePrice(p, 1, null).toFixed()).toBe('20000');
    expect(linePrice(ntp(null), 1).toFixed()).toBe('0');
  });
});

describe('checkNtpAmount', () => {
  const p = ntp({ min_amount: '5000.00', max_amount: '100000.00', suggested_amount: null });
  const refused = (price: PriceSnapshot, amount: string | null | undefined) => {
    try {
      checkNtpAmount(price, amount, 'items[0][amount]');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      return e as DomainError;
    }
    throw new Error('expected a rejection');
  };

  test('an amount inside the limits (inclusive) is accepted', () => {
    expect(() => checkNtpAmount(p, '5000.00', 'items[0][amount]')).not.toThrow();
    expect(() => checkNtpAmount(p, '100000.00', 'items[0][amount]')).not.toThrow();
    expect(() => checkNtpAmount(ntp({ min_amount: null, max_amount: null, suggested_amount: '1.00' }), undefined, 'a')).not.toThrow();
  });

  test('an amount is refused on a price that is not ntp; left out it is fine', () => {
    const e = refused(standard('100.00'), '10.00');
    expect([e.code, e.param, e.message]).toEqual(['parameter_invalid', 'items[0][amount]', 'items[0][amount] is only allowed with an ntp price']);
    expect(() => checkNtpAmount(standard('100.00'), null, 'x')).not.toThrow();
    expect(() => checkNtpAmount(standard('100.00'), undefined, 'x')).not.toThrow();
  });

  test('no amount and no suggestion, zero, below the minimum, above the maximum', () => {
    expect(refused(p, undefined).message).toBe('items[0][amount] is required: price price_ntp lets the customer choose the amount');
    expect(refused(ntp(null), '0').message).toBe('items[0][amount] must be greater than 0');
    expect(refused(p, 'abc').message).toBe('items[0][amount] must be a decimal amount such as "50000.00"');
    expect(refused(p, '1e4').message).toBe('items[0][amount] must be a decimal amount such as "50000.00"');
    expect(refused(p, '4999.99').message).toBe('items[0][amount] must be at least 5000.00');
    expect(refused(p, '100000.01').message).toBe('items[0][amount] must be at most 100000.00');
    expect(refused(p, '4999.99').param).toBe('items[0][amount]');
  });
});

describe('priceLine', () => {
  test('a line in the collection currency: subtotal, total and unit price with the minor-unit digits', () => {
    expect(priceLine(line(standard('59500'), 2), COP)).toEqual({
      id: 'si_1',
      name: 'Plan Pro',
      unit_price: '59500.00',
      subtotal: '119000.00',
      total: '119000.00',
      quantity: 2,
      product,
      price: standard('59500'),
    });
  });

  test('a tiered line: unit_price is the subtotal divided by the quantity, rounded half-up', () => {
    // 12 graduated units = 109000 (see above); 109000 / 12 = 9083.333… → 9083.33.
    expect(priceLine(line(graduated, 12), COP)).toMatchObject({ subtotal: '109000.00', total: '109000.00', unit_price: '9083.33', quantity: 12 });
    // 6 volume units = 53000; 53000 / 6 = 8833.333… → 8833.33.
    expect(priceLine(line(volume, 6), COP)).toMatchObject({ subtotal: '53000.00', unit_price: '8833.33' });
  });

  test('converts at the line rate and rounds once per line, not per unit', () => {
    const usd = standard('0.10', { currency: 'USD' });
    // 3 × 0.10 USD = 0.30 USD × 4123.456 = 1237.0368 COP → 1237.04 (per unit it would be 412.35 × 3 = 1237.05).
    const priced = priceLine(line(usd, 3, { rate: rate('USD', 'COP', '4123.456') }), COP);
    expect(priced.subtotal).toBe('1237.04');
    expect(priced.total).toBe('1237.04');
    // 1237.04 / 3 = 412.3466… → 412.35
    expect(priced.unit_price).toBe('412.35');
    // The item keeps the price as it is (in its own currency).
    expect(priced.price.currency).toBe('USD');
  });

  test('conversion rounds half-up to the collection currency minor unit', () => {
    // 9.99 USD × 4123.456 = 41193.32544 COP → 41193.33
    expect(priceLine(line(standard('9.99', { currency: 'USD' }), 1, { rate: rate('USD', 'COP', '4123.456') }), COP).subtotal).toBe('41193.33');
    // 0.01 EUR × 0.5 = 0.005 USD: exactly half a cent rounds up → 0.01 (half-even would give 0.00).
    expect(priceLine(line(standard('0.01', { currency: 'EUR' }), 1, { rate: rate('EUR', 'USD', '0.5') }), USD).subtotal).toBe('0.01');
    // A currency without minor units: 10000 COP × 0.03756 = 375.6 JPY → 376.
    expect(priceLine(line(standard('10000.00'), 1, { rate: rate('COP', 'JPY', '0.03756') }), JPY)).toMatchObject({ subtotal: '376', unit_price: '376' });
    // CLP has no minor units, COP two: 3 × 999 CLP × 4.3 = 12887.1 COP → 12887.10; unit 12887.10 / 3 = 4295.70.
    expect(priceLine(line(standard('999', { currency: 'CLP' }), 3, { rate: rate('CLP', 'COP', '4.3') }), COP)).toMatchObject({
      subtotal: '12887.10',
      unit_price: '4295.70',
    });
  });

  test('a free line (trial) is billed at 0 whatever its price', () => {
    expect(priceLine(line(standard('59500.00'), 2, { free: true }), COP)).toMatchObject({ unit_price: '0.00', subtotal: '0.00', total: '0.00', quantity: 2 });
  });

  test('a quantity of 0 gives a unit price of 0 (no division by zero)', () => {
    expect(priceLine(line(standard('59500.00'), 0), COP)).toMatchObject({ unit_price: '0.00', subtotal: '0.00' });
  });

  test('an ntp line carries the chosen amount, or the suggested one; other lines carry none', () => {
    const p = ntp({ min_amount: null, max_amount: null, suggested_amount: '20000.00' });
    expect(priceLine(line(p, 1, { amount: '25000.00' }), COP)).toMatchObject({ subtotal: '25000.00', amount: '25000.00' });
    expect(priceLine(line(p, 1), COP)).toMatchObject({ subtotal: '20000.00', amount: '20000.00' });
    expect(priceLine(line(standard('1.00'), 1), COP)).not.toHaveProperty('amount');
  });
});

describe('totals', () => {
  test('subtotal is the sum of the items; without discounts the total equals it', () => {
    expect(totals([item('100000.00', 'si_1'), item('19000.00', 'si_2')], [], COP)).toEqual({ subtotal: '119000.00', total: '119000.00', discount_amounts: {} });
    expect(totals([], [], COP)).toEqual({ subtotal: '0.00', total: '0.00', discount_amounts: {} });
  });

  test('an amount discount takes its amount; a percent discount takes its share of the subtotal', () => {
    // 119000 - 10000 (amount) - 10% of 119000 (11900) = 97100
    expect(totals([item('119000.00')], [discount('sd_a', '10000.00', null), discount('sd_p', null, '10')], COP)).toEqual({
      subtotal: '119000.00',
      total: '97100.00',
      discount_amounts: { sd_a: '10000.00', sd_p: '11900.00' },
    });
  });

  test('a percent discount is rounded half-up to the minor unit', () => {
    // 12.5% of 999.99 = 124.99875 → 125.00; 999.99 - 125.00 = 874.99
    expect(totals([item('999.99')], [discount('sd_p', null, '12.5')], COP)).toEqual({ subtotal: '999.99', total: '874.99', discount_amounts: { sd_p: '125.00' } });
  });

  test('the total never goes below 0: a discount takes at most what is left', () => {
    expect(totals([item('50000.00')], [discount('sd_a', '80000.00', null)], COP)).toEqual({ subtotal: '50000.00', total: '0.00', discount_amounts: { sd_a: '50000.00' } });
    // 119000 - 100000 = 19000 left; 50% wants 59500 but takes the 19000 left.
    expect(totals([item('119000.00')], [discount('sd_a', '100000.00', null), discount('sd_p', null, '50')], COP)).toEqual({
      subtotal: '119000.00',
      total: '0.00',
      discount_amounts: { sd_a: '100000.00', sd_p: '19000.00' },
    });
    expect(totals([item('119000.00')], [discount('sd_p', null, '100')], COP).total).toBe('0.00');
  });
});
