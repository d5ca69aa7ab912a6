import { invalidParam } from './errors.js';
import { Money, isDecimalString } from './money.js';

/**
 * The Colombian withholdings a fiscal invoice states, and the unit each rate is quoted in, as
 * Colombia quotes them: ReteICA per thousand (‰, Bogotá's 9.66 ‰ for most services), ReteIVA and
 * ReteFuente in percent (15 % of the IVA, 2.5 %…). One table for the invoicing settings, the
 * collection, the subscription, the invoice's computation and the country-parameters catalog.
 */
export type RetentionType = 'reteiva' | 'reteica' | 'retefte';
export const RETENTION_TYPES: RetentionType[] = ['reteiva', 'reteica', 'retefte'];

export type RetentionUnit = 'percent' | 'per_mille';
export const RETENTION_UNITS: Record<RetentionType, RetentionUnit> = { reteiva: 'percent', reteica: 'per_mille', retefte: 'percent' };

/** What a rate is divided by to become a fraction: 100 (percent) or 1000 (per thousand). */
export const unitDivisor = (unit: RetentionUnit): number => (unit === 'per_mille' ? 1000 : 100);

/** `rate` (in `type`'s unit) of `base`, unrounded: 9.66 ‰ of 100000 = 966. */
export function retentionOf(type: RetentionType, rate: Money | string, base: Money | string): Money {
  return new Money(base).times(rate).div(unitDivisor(RETENTION_UNITS[type]));
}

/** The unit in words, for messages and descriptions. */
export const unitWords = (type: RetentionType): string => (RETENTION_UNITS[type] === 'per_mille' ? 'per thousand (‰)' : 'percent');

const EXAMPLES: Record<RetentionType, string> = { reteiva: '15', reteica: '9.66', retefte: '2.5' };

/**
 * A rate as a client gives it: a decimal string from 0 to the whole base (100 %, 1000 ‰) with at most
 * 4 decimals, or null (not withheld). Else a 400 naming `param`.
 */
export function checkRetentionRate(param: string, type: RetentionType, value: unknown): void {
  if (value === null || value === undefined) return;
  const max = unitDivisor(RETENTION_UNITS[type]);
  const ok = isDecimalString(value) && !value.startsWith('-') && !/\.\d{5,}$/.test(value) && new Money(value).lte(max);
  if (!ok) throw invalidParam(param, `${param} must be a rate ${unitWords(type)} from 0 to ${max} with at most 4 decimals, such as "${EXAMPLES[type]}", or null`);
}
