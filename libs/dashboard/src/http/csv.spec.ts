import { csvAmount, csvCell, csvDateTime, csvLine, csvSeparator } from './csv.js';

test('amounts as a spreadsheet in the language reads them: decimal comma in es-CO, point in English, no thousands separator', () => {
  expect(csvAmount('49900', 'COP', 'es-CO')).toBe('49900,00');
  expect(csvAmount('1249900.5', 'COP', 'en')).toBe('1249900.50');
  expect(csvAmount('10', 'JPY', 'es-CO')).toBe('10');
  expect(csvAmount('-5000', 'COP', 'es-CO')).toBe('-5000,00');
});

test('dates as YYYY-MM-DD HH:mm in Bogotá, from ISO timestamps and from the spec\'s UTC created_date', () => {
  expect(csvDateTime('2026-11-27T03:30:00.000Z')).toBe('2026-11-26 22:30');
  expect(csvDateTime('2026-11-23 10:00:00')).toBe('2026-11-23 05:00');
  expect(csvDateTime('2026-11-30')).toBe('2026-11-30');
  expect(csvDateTime(null)).toBe('');
});

test('cells: formulas neutralised, quotes doubled, separators quoted; a plain negative number left a number', () => {
  expect(csvCell('=1+2', ';')).toBe("'=1+2");
  expect(csvCell('+57 300', ';')).toBe("'+57 300");
  expect(csvCell('@SUM(A1)', ';')).toBe("'@SUM(A1)");
  expect(csvCell('-1+2', ';')).toBe("'-1+2");
  expect(csvCell('-5000,00', ';')).toBe('-5000,00');
  expect(csvCell('Dijo "hola"', ',')).toBe('"Dijo ""hola"""');
  expect(csvCell('a;b', ';')).toBe('"a;b"');
  expect(csvCell('a;b', ',')).toBe('a;b');
  expect(csvLine(['Gómez', '49900,00'], csvSeparator('es-CO'))).toBe('Gómez;49900,00\r\n');
  expect(csvLine(['a', 'b,c'], csvSeparator('en'))).toBe('a,"b,c"\r\n');
});
