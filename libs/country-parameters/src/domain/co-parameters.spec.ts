import { describe, expect, test } from '@jest/globals';
import { DomainError } from '../../../shared/src/errors.js';
import { CO_DEPARTMENTS, CO_MUNICIPALITIES } from '../data/co.parameters.js';
import { checkColombianCustomer, departmentCode } from './co-parameters.js';

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
    expect(refusal(() => checkColombianCustomer(null, addr('Guatapé', 'Antioquia')))).toBeNull(); // not in the subset: not checked
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
});
