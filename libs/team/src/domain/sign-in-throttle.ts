/**
 * Sign-in throttling (pure; the time is passed in). Failed sign-ins are counted per e-mail and per
 * client address. After a few failures each attempt waits a growing delay; then a lockout of 15
 * minutes refuses every attempt until it ends by itself, and the count starts again. A count whose
 * last failure is older than 15 minutes is forgotten. A success resets the e-mail's count (the
 * caller decides which entries a success resets).
 */
export interface ThrottleEntry {
  failures: number;
  locked_until: string | null;
  last_failure_at: string | null;
}

export type ThrottleScope = 'email' | 'address';

export interface ThrottleRule {
  /** The failure that locks (the 5th for an e-mail). */
  lockAt: number;
  /** The failure count from which attempts wait (3 for an e-mail: none after 1 or 2 failures). */
  delayFrom: number;
  lockMs: number;
}

export const THROTTLE_RULES: Record<ThrottleScope, ThrottleRule> = {
  email: { lockAt: 5, delayFrom: 3, lockMs: 15 * 60_000 },
  address: { lockAt: 20, delayFrom: 10, lockMs: 15 * 60_000 },
};
/** The delay after `delayFrom` failures; it doubles with each further failure. */
export const BASE_DELAY_MS = 500;
/**
 * No attempt waits longer (the address's rule would reach 500 ms × 2⁹ = 256 s at 19 failures: a
 * lockout's job, not a delay's, and a request held that long is a resource of ours held too).
 */
export const MAX_DELAY_MS = 4_000;
/** Failures are remembered this long after the last one. */
export const FAILURE_MEMORY_MS = 15 * 60_000;

export interface ThrottleState {
  locked: boolean;
  lockedUntil: Date | null;
  /** How long the next attempt waits before it is checked (0: at once). */
  delayMs: number;
}

const time = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** The failures still counted at `now` (0 once a lockout has ended or the last failure is old). */
function liveFailures(entry: ThrottleEntry, now: Date): number {
  const t = now.getTime();
  const lockedUntil = time(entry.locked_until);
  if (lockedUntil !== null) return lockedUntil > t ? entry.failures : 0;
  const last = time(entry.last_failure_at);
  return last !== null && t - last < FAILURE_MEMORY_MS ? entry.failures : 0;
}

/** Which rules an entry follows: the scope when given, else its id's prefix (`ip:` is an address). */
function scopeOf(entry: ThrottleEntry & { id?: string }, scope?: ThrottleScope): ThrottleScope {
  return scope ?? (entry.id?.startsWith('ip:') ? 'address' : 'email');
}

/** The full delay after `failures` failures under `rule`. */
export function delayAfter(failures: number, rule: ThrottleRule): number {
  if (failures < rule.delayFrom) return 0;
  return Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (failures - rule.delayFrom));
}

/**
 * Whether attempts are refused now, until when, and how long the next one waits: the delay of the
 * failures so far, less the time since the last one.
 */
export function throttleState(entry: ThrottleEntry & { id?: string }, now: Date, scope?: ThrottleScope): ThrottleState {
  const t = now.getTime();
  const lockedUntil = time(entry.locked_until);
  if (lockedUntil !== null && lockedUntil > t) return { locked: true, lockedUntil: new Date(lockedUntil), delayMs: 0 };
  const failures = liveFailures(entry, now);
  const delay = delayAfter(failures, THROTTLE_RULES[scopeOf(entry, scope)]);
  const last = time(entry.last_failure_at);
  const waited = last === null ? 0 : Math.max(0, t - last);
  return { locked: false, lockedUntil: null, delayMs: Math.max(0, delay - waited) };
}

/**
 * The entry after one more failure at `now`. The failure that reaches the rule's count locks for
 * `lockMs` from now; a failure while locked (attempts that raced the lock) counts but does not
 * lengthen the lockout.
 */
export function afterFailure(entry: ThrottleEntry, now: Date, scope: ThrottleScope): ThrottleEntry {
  const rule = THROTTLE_RULES[scope];
  const t = now.getTime();
  const current = time(entry.locked_until);
  const stillLocked = current !== null && current > t;
  const failures = liveFailures(entry, now) + 1;
  const lockedUntil = stillLocked ? entry.locked_until : failures >= rule.lockAt ? new Date(t + rule.lockMs).toISOString() : null;
  return { failures, locked_until: lockedUntil, last_failure_at: now.toISOString() };
}

/** A fresh entry: no failures, no lockout. */
export function afterSuccess(): ThrottleEntry {
  return { failures: 0, locked_until: null, last_failure_at: null };
}
