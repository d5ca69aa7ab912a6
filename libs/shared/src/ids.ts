import { randomFillSync, randomUUID } from 'node:crypto';
import { currentIdempotentScope, scopedIdSuffix } from './idempotent-scope.js';

/** Identifier prefixes of the spec (plus `acct_` and `req_`, ours). */
export const ID_PREFIX = {
  account: 'acct',
  product: 'prod',
  price: 'price',
  customer: 'cus',
  subscription: 'sub',
  collection: 'col',
  transaction: 'tx',
  charge: 'ch',
  invoice: 'inv',
  creditNote: 'cn',
  paymentMethod: 'pm',
  item: 'si',
  discount: 'sd',
  checkoutSession: 'cs',
  paymentLink: 'pl',
  /** Ours (the spec names no prefix for these). */
  coupon: 'coupon',
  storefront: 'sf',
  testClock: 'clock',
  webhookEndpoint: 'we',
  event: 'evt',
  request: 'req',
} as const;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from the CSPRNG a few kilobytes at a time (as `randomUUID` caches its own), each
 * byte used once: one system call per ~150 ids instead of one per id.
 */
const pool = Buffer.alloc(8192);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++];
}

/** `length` random base62 characters (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export function newId(prefix: (typeof ID_PREFIX)[keyof typeof ID_PREFIX]): string {
  // Inside a request with an Idempotency-Key, ids are derived from its claim (see idempotent-scope.ts).
  const scope = prefix === 'req' ? undefined : currentIdempotentScope();
  if (scope) return `${prefix}_${scopedIdSuffix(scope, prefix, ALPHABET)}`;
  return `${prefix}_${randomBase62(24)}`;
}

/** Public event id for a stored event's UUID, and back. */
export function eventIdFromUuid(uuid: string): string {
  return `evt_${uuid.replace(/-/g, '')}`;
}

export function uuidFromEventId(eventId: string): string | null {
  const m = /^evt_([0-9a-f]{32})$/.exec(eventId);
  if (!m) return null;
  const h = m[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function newEventUuid(): string {
  return randomUUID();
}

export function hasPrefix(id: string, prefix: string): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
