import { randomFillSync } from 'node:crypto';
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
  /** A replay of an account's events to one webhook endpoint (libs/webhooks). */
  webhookReplay: 'whr',
  event: 'evt',
  request: 'req',
  /** Team members, their invitations, password resets and credentials (the dashboard's people). */
  member: 'mem',
  invitation: 'invite',
  passwordReset: 'rst',
  credential: 'cred',
  /** A worker process (ROLE=all or worker) as its leases name it (libs/platform/src/leases.ts): one per start. */
  worker: 'wrk',
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

/** The millisecond of the last time prefix made, and that prefix. */
let prefixMs = -1;
let prefixText = '';

/** `ms` as 8 base62 digits, most significant first (the alphabet is in ASCII order: the text sorts as the number). */
function timePrefix(ms: number): string {
  if (ms === prefixMs) return prefixText;
  let n = ms;
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  prefixMs = ms;
  prefixText = out;
  return out;
}

/**
 * A new object id: the prefix, then 24 base62 characters: 8 of the machine's time in ms (sorting
 * in time until the year 8888), then 16 random (95 bits). Time first for the same reason as the
 * event UUIDs (newEventUuid): every collection's `id` key and the feed's object index are B-trees,
 * and new documents keyed at random places miss every page cache once the tables are large (a
 * billing run of 100,000 renewals: 153 → 97 s here). The time is not the clock port's (a test
 * clock never shows in an id) and nothing orders by it. Nothing secret is an object id (API keys,
 * checkout tokens and portal links have random values of their own); 95 random bits stay unguessable.
 */
export function newId(prefix: (typeof ID_PREFIX)[keyof typeof ID_PREFIX]): string {
  // Inside a request with an Idempotency-Key, ids are derived from its claim (see idempotent-scope.ts).
  const scope = prefix === 'req' ? undefined : currentIdempotentScope();
  if (scope) return `${prefix}_${scopedIdSuffix(scope, prefix, ALPHABET)}`;
  return `${prefix}_${timePrefix(Date.now())}${randomBase62(16)}`;
}

/**
 * The seed of a new Idempotency-Key claim (idempotent-scope.ts): `t`, the machine's time in ms as 8
 * base62 digits, then 22 random (131 bits); the ids of the request's objects derive from it and
 * start with that time.
 */
export function newIdempotencySeed(): string {
  return `t${timePrefix(Date.now())}${randomBase62(22)}`;
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

/** The last UUIDv7 timestamp (ms) and the counter within it (RFC 9562 method 1: 12 bits of `rand_a`). */
let v7Ms = 0;
let v7Counter = 0;
/** `xxxxxxxx-xxxx-7` for v7Ms (null: to be made). */
let v7Time: string | null = null;
const HEX_DIGIT = '0123456789abcdef';
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A stored event's UUID: version 7 (RFC 9562): 48 bits of Unix time in ms, a 12-bit counter within
 * the millisecond, 62 random bits. Why not random (v4): the event store's `event_id` index and the
 * feed's `evt_` key are B-trees; random keys land on a random leaf each, which at hundreds of
 * thousands of events misses every page cache, while time-ordered keys are appended at the right
 * edge (a billing run of 100,000 renewals: 173 → 140 s here). The time is the machine's, not the
 * clock port's (a test clock's time never shows in an id); an event's order is its position, never
 * its id. Monotonic in this process: a clock going back, or 4,096 ids in one millisecond, borrow
 * the next millisecond.
 */
export function newEventUuid(): string {
  const now = Date.now();
  if (now > v7Ms) {
    v7Ms = now;
    v7Counter = 0;
    v7Time = null;
  } else if (++v7Counter > 0xfff) {
    v7Ms += 1;
    v7Counter = 0;
    v7Time = null;
  }
  if (v7Time === null) {
    const ts = v7Ms.toString(16).padStart(12, '0');
    v7Time = `${ts.slice(0, 8)}-${ts.slice(8)}-7`;
  }
  const c = v7Counter;
  return (
    v7Time + HEX_DIGIT[c >> 8] + HEX[c & 0xff] + '-' +
    HEX[(randomByte() & 0x3f) | 0x80] + HEX[randomByte()] + '-' + // the variant (10) in the top bits
    HEX[randomByte()] + HEX[randomByte()] + HEX[randomByte()] + HEX[randomByte()] + HEX[randomByte()] + HEX[randomByte()]
  );
}

export function hasPrefix(id: string, prefix: string): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
