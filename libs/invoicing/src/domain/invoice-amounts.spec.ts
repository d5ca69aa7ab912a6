import { describe, expect, test } from '@jest/globals';
import { currency } from '#shared/money.js';
import { invoiceAmounts } from './invoice-amounts.js';

const COP = currency('COP')!;
const line = (amount: string, tax_percentage: string | null = null) => ({ description: 'Plan', quantity: 1, amount, tax_id: tax_percentage ? '01' : null, tax_percentage });

describe('invoice amounts: withholdings in their units (ReteICA per thousand, ReteIVA and ReteFuente percent)', () => {
  test("Bogotá's ReteICA, 9.66 ‰ of a taxable base of 100,000 COP, is 966 COP", () => {
    const a = invoiceAmounts([line('100000')], { reteica: '9.66' }, COP);
    expect(a.retentions).toEqual([{ type: 'reteica', rate: '9.66', base: '100000.00', amount: '966.00' }]);
    expect(a.retention_total).toBe('966.00');
  });

  test('a non-round base is withheld to the peso cent, half-up: 9.66 ‰ of 100,750 is 973.245 → 973.25', () => {
    expect(invoiceAmounts([line('100750')], { reteica: '9.66' }, COP).retentions[0]).toMatchObject({ base: '100750.00', amount: '973.25' });
  });

  test('with IVA: ReteICA on the taxable base (‰), ReteFuente on it too (%), ReteIVA on the tax (%)', () => {
    // 123,457 with 19 % IVA: base 103,745.38, tax 19,711.62.
    const a = invoiceAmounts([line('123457', '19')], { reteica: '9.66', retefte: '2.5', reteiva: '15' }, COP);
    expect(a).toMatchObject({ subtotal: '103745.38', tax_total: '19711.62', total: '123457.00' });
    expect(a.retentions).toEqual([
      { type: 'reteiva', rate: '15', base: '19711.62', amount: '2956.74' },
      { type: 'reteica', rate: '9.66', base: '103745.38', amount: '1002.18' },
      { type: 'retefte', rate: '2.5', base: '103745.38', amount: '2593.63' },
    ]);
    expect(a.retention_total).toBe('6552.55');
  });
});
