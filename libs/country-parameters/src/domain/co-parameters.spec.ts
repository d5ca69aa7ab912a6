import { describe, expect, test } from '@jest/globals';
import { DomainError } from '#shared/errors.js';
import { readFileSync } from 'node:fs';
import { CO_DEPARTMENTS, CO_MUNICIPALITIES } from '../data/co.parameters.js';
import { checkColombianCustomer, departmentCode, municipalitiesNamed } from './co-parameters.js';

const refusal = (run: () => void) => {
  try {
    run();
  } catch (e) {
    return e as DomainError;
  }
  return null;
};
const addr = (city: string, state: string, country = 'CO') => ({ city, state, country });

describe('the Colombian parameter catalog', () => {
  test('33 departments with unique 2-digit DANE codes; every municipality code starts with its department code', () => {
    expect(CO_DEPARTMENTS).toHaveLength(33);
    expect(new Set(CO_DEPARTMENTS.map((d) => d.dane_code)).size).toBe(33);
    for (const m of CO_MUNICIPALITIES) {
      expect(m.dane_code).toMatch(/^\d{5}$/);
      expect(m.dane_code.slice(0, 2)).toBe(m.department);
      expect(CO_DEPARTMENTS.some((d) => d.dane_code === m.department)).toBe(true);
    }
  });

  test('departments are found by name, alias or code, ignoring case and accents', () => {
    expect(departmentCode('Atlántico')).toBe('08');
    expect(departmentCode('atlantico')).toBe('08');
    expect(departmentCode('Valle')).toBe('76');
    expect(departmentCode('bogota d.c.')).toBe('11');
    expect(departmentCode('05')).toBe('05');
    expect(departmentCode('Texas')).toBeNull();
  });

  test('a CO address: a known department; a known city in its own department (Bogotá also as Cundinamarca)', () => {
    expect(refusal(() => checkColombianCustomer('CC', addr('Medellín', 'Antioquia')))).toBeNull();
    expect(refusal(() => checkColombianCustomer('NIT', addr('Bogotá', 'Cundinamarca')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('Cali', 'Valle')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('Guatapé', 'Antioquia')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('Guatapé', 'Cundinamarca')))?.message).toContain('05321');
    expect(refusal(() => checkColombianCustomer(null, addr('El Poblado', 'Antioquia')))).toBeNull(); // no municipality of that name: not checked
    // A code-shaped city that DIVIPOLA does not have is no village: refused (05999 is no code of Antioquia's, 99999 of no department).
    const unknownCode = refusal(() => checkColombianCustomer(null, addr('05999', '05')));
    expect(unknownCode?.param).toBe('billing_address[city]');
    expect(unknownCode?.message).toContain('05999');
    expect(refusal(() => checkColombianCustomer(null, addr(' 99999 ', 'Antioquia')))?.param).toBe('billing_address[city]');
    expect(refusal(() => checkColombianCustomer(null, addr('05001', '05')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('Medellín', 'Texas')))?.param).toBe('billing_address[state]');
    const wrong = refusal(() => checkColombianCustomer(null, addr('Medellín', 'Cundinamarca')));
    expect(wrong?.param).toBe('billing_address[city]');
    expect(wrong?.message).toContain('05001');
  });

  test('document types: DIAN identity documents with a CO address; anything elsewhere', () => {
    expect(refusal(() => checkColombianCustomer('DNI', addr('Cali', 'Valle')))?.param).toBe('document_type');
    expect(refusal(() => checkColombianCustomer('DNI', addr('Lima', 'Lima', 'PE')))).toBeNull();
    expect(refusal(() => checkColombianCustomer('PPT', addr('Cali', 'Valle')))).toBeNull();
  });

  test('the whole DIVIPOLA list: 1,122 entries (1,102 municipalities, Bogotá D.C., 19 non-municipal areas), each under a department of the catalog', () => {
    expect(CO_MUNICIPALITIES).toHaveLength(1122);
    expect(new Set(CO_MUNICIPALITIES.map((m) => m.dane_code)).size).toBe(1122);
    const kinds = (k: string) => CO_MUNICIPALITIES.filter((m) => m.kind === k).length;
    expect([kinds('municipality'), kinds('capital_district'), kinds('non_municipal_area')]).toEqual([1102, 1, 19]);
    for (const d of CO_DEPARTMENTS) expect(CO_MUNICIPALITIES.some((m) => m.dane_code === `${d.dane_code}001`)).toBe(true);
    // Antioquia has 125 municipalities, Amazonas 2 and 9 non-municipal areas (DANE).
    expect(CO_MUNICIPALITIES.filter((m) => m.department === '05')).toHaveLength(125);
    expect(CO_MUNICIPALITIES.filter((m) => m.department === '91').map((m) => m.kind).sort()).toEqual([...Array(2).fill('municipality'), ...Array(9).fill('non_municipal_area')].sort());
  });

  test('the generated TS file is the CSV it was generated from (run scripts/generate-co-municipalities.mjs after editing the CSV)', () => {
    const csv = readFileSync(new URL('../../scripts/divipola-municipalities.csv', import.meta.url), 'utf8').trim().split('\n').slice(1);
    const rows = csv.map((line) => {
      const m = /^(\d{5}),(?:"((?:[^"]|"")*)"|(.*))$/.exec(line)!;
      return [m[1], (m[2] ?? m[3]).replace(/""/g, '"')];
    });
    expect(CO_MUNICIPALITIES.map((m) => [m.dane_code, m.name])).toEqual(rows);
  });

  test('municipalities far from the capitals are known: Leticia (91001), San Andrés (88001), Puerto Nariño (91540); a name several departments share is checked against each', () => {
    expect(refusal(() => checkColombianCustomer('CC', addr('Leticia', 'Amazonas')))).toBeNull();
    expect(refusal(() => checkColombianCustomer('CC', addr('91001', '91')))).toBeNull();
    const leticia = refusal(() => checkColombianCustomer('CC', addr('Leticia', 'Antioquia')));
    expect(leticia?.param).toBe('billing_address[city]');
    expect(leticia?.message).toContain('91001');
    expect(refusal(() => checkColombianCustomer('NIT', addr('San Andrés', 'San Andrés y Providencia')))).toBeNull();
    expect(refusal(() => checkColombianCustomer('NIT', addr('San Andrés', 'Santander')))).toBeNull(); // 68669 San Andrés, Santander
    expect(refusal(() => checkColombianCustomer('NIT', addr('San Andrés', 'Valle')))?.message).toContain('88001');
    expect(refusal(() => checkColombianCustomer(null, addr('Puerto Nariño', 'Amazonas')))).toBeNull();
    expect(municipalitiesNamed('San Francisco').map((m) => m.dane_code)).toEqual(['05652', '25658', '86755']);
    expect(refusal(() => checkColombianCustomer(null, addr('San Francisco', 'Putumayo')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('San Francisco', 'Meta')))?.param).toBe('billing_address[city]');
    expect(refusal(() => checkColombianCustomer(null, addr('Cúcuta', 'Norte de Santander')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('San José de Cúcuta', 'Norte de Santander')))).toBeNull();
    // Short forms of official names: Tumaco is San Andrés de Tumaco (52835, Nariño).
    expect(refusal(() => checkColombianCustomer(null, addr('Tumaco', 'Nariño')))).toBeNull();
    expect(refusal(() => checkColombianCustomer(null, addr('Tumaco', 'Cauca')))?.message).toContain('52835');
  });
});
