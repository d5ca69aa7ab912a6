import { invalidParam } from '#shared/errors.js';
import { CO_DEPARTMENTS, CO_DOCUMENT_TYPES, CO_MUNICIPALITIES, CO_MUNICIPALITY_ALIASES } from '../data/co.parameters.js';

/** Names compared as people write them: case, accents, dots, commas and extra spaces ignored. */
export const normalizeName = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[.,]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

const DEPARTMENTS = new Map<string, string>();
for (const d of CO_DEPARTMENTS) for (const n of [d.name, d.dane_code, ...d.aliases]) DEPARTMENTS.set(normalizeName(n), d.dane_code);
/** Name (or code) → every municipality so written: one name can be several departments' (San Francisco: 05, 25, 86). */
const MUNICIPALITIES = new Map<string, (typeof CO_MUNICIPALITIES)[number][]>();
for (const m of CO_MUNICIPALITIES) {
  for (const n of new Set([m.name, m.dane_code, ...(CO_MUNICIPALITY_ALIASES[m.dane_code] ?? [])].map(normalizeName))) {
    MUNICIPALITIES.set(n, [...(MUNICIPALITIES.get(n) ?? []), m]);
  }
}

/** The municipalities (DIVIPOLA entries) a city name or DANE code designates; empty when none. */
export const municipalitiesNamed = (city: string) => MUNICIPALITIES.get(normalizeName(city)) ?? [];

/** The DANE code of a department written by name, alias or code; null when unknown. */
export const departmentCode = (state: string) => DEPARTMENTS.get(normalizeName(state)) ?? null;

export const CO_DOCUMENT_TYPE_CODES = CO_DOCUMENT_TYPES.map((d) => d.code);

/**
 * A customer's document type and billing address in Colombia, checked against the catalog:
 * `document_type` one of DIAN's identity documents (CC, CE, NIT, PP, TI, …), `state` a department
 * (name, usual alias or DANE code) and, when `city` names a municipality of DIVIPOLA (by name, usual
 * alias or 5-digit DANE code; the whole list is shipped), that one of that name lies in that
 * department. A city that names no municipality (a village, a corregimiento: DIVIPOLA's populated
 * centres are not shipped) is accepted; a 5-digit code that is none of DIVIPOLA's is refused. 400
 * `parameter_invalid` naming the field.
 */
export function checkColombianCustomer(documentType: string | null | undefined, address: { city: string; state: string; country: string } | null | undefined): void {
  if (!address || address.country.trim().toUpperCase() !== 'CO') return;
  if (documentType && !CO_DOCUMENT_TYPE_CODES.includes(documentType)) {
    throw invalidParam('document_type', `document_type ${documentType} is not a Colombian identity document; with a billing address in CO use one of ${CO_DOCUMENT_TYPE_CODES.join(', ')}`);
  }
  const department = departmentCode(address.state);
  if (!department) {
    throw invalidParam('billing_address[state]', `billing_address[state] must be a department of Colombia (name or DANE code, e.g. Antioquia or 05); got ${address.state.trim()}. See GET /v1/country_parameters/CO`);
  }
  const named = municipalitiesNamed(address.city);
  // A 5-digit code is a DANE code or nothing: no village is written that way, and the list is whole.
  if (named.length === 0 && /^\d{5}$/.test(address.city.trim())) {
    throw invalidParam('billing_address[city]', `billing_address[city] ${address.city.trim()} is not a DANE municipality code (DIVIPOLA); use a municipality's 5-digit code or name. See GET /v1/country_parameters/CO?department=${department}`);
  }
  if (named.length > 0 && !named.some((m) => m.department === department || (m.also_in ?? []).includes(department))) {
    const where = named.map((m) => `${m.name} (${m.dane_code}) is in ${CO_DEPARTMENTS.find((d) => d.dane_code === m.department)!.name}`).join('; ');
    throw invalidParam('billing_address[city]', `billing_address[city] ${address.city.trim()}: ${where}, not in ${address.state.trim()}`);
  }
}
