import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A personal-data value as stored in an event (docs/personal-data.md): the AES-256-GCM ciphertext of
 * the value's JSON under its customer's data key, with the customer's id and the placeholder a reader
 * gets once that key is destroyed.
 *
 *   { "$pii": base64(iv ‖ ciphertext ‖ tag), "c": "cus_…", "p": "[erased]" | null | {} }
 */
export interface PiiValue {
  $pii: string;
  /** The customer whose data key encrypts it. */
  c: string;
  /** What a reader gets once the key is destroyed: `"[erased]"` for text, `null` for an address or a shipping, `{}` for meta_data. */
  p: Placeholder;
}

/** The documented placeholders: text → "[erased]", a structure (address, shipping) → null, a key–value map (meta_data, custom fields) → {}. */
export const ERASED_TEXT = '[erased]';
export type Placeholder = typeof ERASED_TEXT | null | Record<string, never>;

const IV_BYTES = 12;
const TAG_BYTES = 16;
export const DATA_KEY_BYTES = 32;
const aad = (customerId: string) => Buffer.from(`pii v1 ${customerId}`);

export function isPiiValue(value: unknown): value is PiiValue {
  return !!value && typeof value === 'object' && typeof (value as PiiValue).$pii === 'string' && typeof (value as PiiValue).c === 'string';
}

/** The placeholder of a kind of value: text, a structure, or a key–value map. */
export function placeholderOf(kind: 'text' | 'structure' | 'map'): Placeholder {
  return kind === 'text' ? ERASED_TEXT : kind === 'map' ? {} : null;
}

export function encryptPii(key: Buffer, customerId: string, value: unknown, placeholder: Placeholder): PiiValue {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(customerId));
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(JSON.stringify(value), 'utf8')), cipher.final()]);
  return { $pii: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64'), c: customerId, p: placeholder };
}

/** The value; throws when the key does not open it (another customer's key, altered bytes). */
export function decryptPii(key: Buffer, value: PiiValue): unknown {
  const raw = Buffer.from(value.$pii, 'base64');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error(`A personal-data value of customer ${value.c} is malformed`);
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad(value.c));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
  return JSON.parse(plain.toString('utf8'));
}

/** A copy of the placeholder (a reader may change what it is given). */
export function placeholderFor(value: PiiValue): unknown {
  const p = value.p === undefined ? ERASED_TEXT : value.p;
  return p && typeof p === 'object' ? {} : p;
}
