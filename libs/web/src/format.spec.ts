import { cardBrand, formatDate, formatDateTime, formatMoney } from './format.js';
import { resolveLocale, translator } from './i18n.js';

describe('formatMoney', () => {
  test('COP with Colombian conventions, cents only when present', () => {
    expect(formatMoney('49900.00', 'COP', 'es-CO')).toBe('$ 49.900');
    expect(formatMoney('49900.5', 'COP', 'es-CO')).toBe('$ 49.900,50');
    expect(formatMoney('1234567890123456789.99', 'COP', 'es-CO')).toBe('$ 1.234.567.890.123.456.789,99');
  });
  test('other currencies and English', () => {
    expect(formatMoney('10.5', 'USD', 'es-CO')).toBe('US$ 10,50');
    expect(formatMoney('49900.00', 'COP', 'en')).toBe('COP 49,900');
    expect(formatMoney('1000', 'JPY', 'en')).toBe('¥1,000');
  });
});

test('dates in Bogotá time, per locale', () => {
  expect(formatDate('2026-11-28T03:44:27.308Z', 'es-CO')).toBe('27 de noviembre de 2026');
  expect(formatDate('2026-11-28T03:44:27.308Z', 'en')).toBe('November 27, 2026');
  expect(formatDate(null, 'en')).toBe('');
  expect(formatDate('2026-11-28T03:44:27.308Z', 'es-CO', 'short')).toBe('27 de nov de 2026');
  expect(formatDate('2026-11-28T03:44:27.308Z', 'en', 'short')).toBe('Nov 27, 2026');
});

test('timestamps with their time of day in Bogotá time; anything else is not one', () => {
  expect(formatDateTime('2026-11-28T03:44:27.308Z', 'es-CO')).toBe('27 de noviembre de 2026 a las 10:44 p. m.');
  expect(formatDateTime('2026-11-28T03:44:27.308Z', 'en')).toBe('November 27, 2026 at 10:44 PM');
  for (const notOne of [null, '', 'month', '2026-11-28', 'sub_2026-11-28T03:44', '2026-13-45T99:99:00Z']) expect(formatDateTime(notOne, 'en')).toBe('');
});

test('locale resolution and the catalog', () => {
  expect(resolveLocale('en-US')).toBe('en');
  expect(resolveLocale('fr')).toBe('es-CO');
  expect(resolveLocale(undefined)).toBe('es-CO');
  const t = translator('en', { 'es-CO': { hi: 'Hola {name}' }, en: { hi: 'Hi {name}' } });
  expect(t('hi', { name: 'Ana' })).toBe('Hi Ana');
  expect(t('error.back')).toBe('Go back');
  expect(t('no.such.key')).toBe('no.such.key');
});

describe('cardBrand', () => {
  test('brands as people write them; unknown ones capitalised; nothing for nothing', () => {
    expect(cardBrand('visa')).toBe('Visa');
    expect(cardBrand('mastercard')).toBe('Mastercard');
    expect(cardBrand('AMEX')).toBe('American Express');
    expect(cardBrand('newbrand')).toBe('Newbrand');
    expect(cardBrand(null)).toBe('');
  });
});
