import { invalidParam } from './errors.js';

export type MetaData = Record<string, string>;

/**
 * `meta_data`: an object of string keys and string values, each value at most 255 characters
 * (the spec's limit), at most 50 keys of at most 40 characters (Stripe's limits).
 */
export function checkMetaData(value: unknown, param = 'meta_data'): MetaData | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParam(param, `${param} must be an object of string keys and string values`);
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 50) throw invalidParam(param, `${param} can have at most 50 keys`);
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > 40) throw invalidParam(`${param}[${k}]`, `${param} keys must be 1 to 40 characters long`);
    if (typeof v !== 'string') throw invalidParam(`${param}[${k}]`, `${param} values must be strings`);
    if (v.length > 255) throw invalidParam(`${param}[${k}]`, `${param} values can be at most 255 characters long`);
  }
  return { ...(value as MetaData) };
}

/** Stripe-style merge: a key set to "" removes it. */
export function mergeMetaData(current: MetaData, changes: MetaData): MetaData {
  const next = { ...current };
  for (const [k, v] of Object.entries(changes)) {
    if (v === '') delete next[k];
    else next[k] = v;
  }
  return next;
}
