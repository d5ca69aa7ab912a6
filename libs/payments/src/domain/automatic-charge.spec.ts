import { expect, test } from '@jest/globals';
import { cardExpired } from './automatic-charge.js';

test('a card is valid through the last moment of its expiry month (UTC), expired from the first of the next', () => {
  const card = { exp_month: 2, exp_year: 2026 };
  expect(cardExpired(card, new Date('2026-02-28T23:59:59.999Z'))).toBe(false);
  expect(cardExpired(card, new Date('2026-03-01T00:00:00.000Z'))).toBe(true);
  expect(cardExpired({ exp_month: 12, exp_year: 2026 }, new Date('2026-12-31T23:59:59.000Z'))).toBe(false);
  expect(cardExpired({ exp_month: 12, exp_year: 2026 }, new Date('2027-01-01T00:00:00.000Z'))).toBe(true);
  expect(cardExpired(null, new Date('2099-01-01T00:00:00.000Z'))).toBe(false);
});
