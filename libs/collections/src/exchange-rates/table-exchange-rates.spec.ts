import { describe, expect, test } from '@jest/globals';
import { DEFAULT_RATES, TableExchangeRates } from './table-exchange-rates.js';

const at = new Date('2026-01-31T10:00:00.000Z');

describe('table exchange rates', () => {
  test('a configured pair answers its rate, with the moment and the source', async () => {
    expect(await new TableExchangeRates().rate('USD', 'COP', at)).toEqual({ from: 'USD', to: 'COP', rate: '4000', as_of: '2026-01-31T10:00:00.000Z', source: 'table' });
  });

  test('currency codes are read in any case', async () => {
    const rates = new TableExchangeRates(' usd:cop=4100.50 ');
    expect(await rates.rate('usd', 'cop', at)).toMatchObject({ from: 'USD', to: 'COP', rate: '4100.5' });
  });

  test('the inverse of each pair is derived: 1 / rate, 12 significant digits', async () => {
    const rates = new TableExchangeRates();
    // 1 / 4000 = 0.00025
    expect((await rates.rate('COP', 'USD', at))?.rate).toBe('0.00025');
    // 1 / 4.3 = 0.232558139534883… → 12 significant digits 0.232558139535
    expect((await rates.rate('COP', 'CLP', at))?.rate).toBe('0.232558139535');
    expect((await rates.rate('COP', 'CLP', at))?.source).toBe('table');
  });

  test('an explicit inverse wins over the derived one, in either order', async () => {
    const after = new TableExchangeRates('USD:COP=4000,COP:USD=0.0003');
    expect((await after.rate('COP', 'USD', at))?.rate).toBe('0.0003');
    expect((await after.rate('USD', 'COP', at))?.rate).toBe('4000');
    const before = new TableExchangeRates('COP:USD=0.0003,USD:COP=4000');
    expect((await before.rate('COP', 'USD', at))?.rate).toBe('0.0003');
    expect((await before.rate('USD', 'COP', at))?.rate).toBe('4000');
  });

  test('the same currency is the identity', async () => {
    expect(await new TableExchangeRates('').rate('cop', 'COP', at)).toEqual({ from: 'COP', to: 'COP', rate: '1', as_of: '2026-01-31T10:00:00.000Z', source: 'identity' });
  });

  test('a pair through neither direction is unknown (no triangulation through COP)', async () => {
    const rates = new TableExchangeRates();
    expect(await rates.rate('USD', 'EUR', at)).toBeNull();
    expect(await rates.rate('USD', 'JPY', at)).toBeNull();
  });

  test('every default pair reads, blanks between entries are ignored', async () => {
    expect(() => new TableExchangeRates(DEFAULT_RATES)).not.toThrow();
    const rates = new TableExchangeRates('USD:COP=4000, ,EUR:COP=4400,');
    expect((await rates.rate('EUR', 'COP', at))?.rate).toBe('4400');
  });

  test('a malformed entry or a rate that is not positive is refused at start-up', () => {
    expect(() => new TableExchangeRates('USD-COP=4000')).toThrow('EXCHANGE_RATES: cannot read "USD-COP=4000" (expected FROM:TO=rate)');
    expect(() => new TableExchangeRates('USD:COP=')).toThrow('EXCHANGE_RATES: cannot read "USD:COP=" (expected FROM:TO=rate)');
    expect(() => new TableExchangeRates('USD:COP=-1')).toThrow('cannot read "USD:COP=-1"');
    expect(() => new TableExchangeRates('USD:COP=0')).toThrow('cannot read "USD:COP=0"');
    expect(() => new TableExchangeRates('USD:COP=1e3')).toThrow('cannot read');
  });
});
