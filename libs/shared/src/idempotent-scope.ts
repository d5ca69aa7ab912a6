import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';

/**
 * The scope of one request made with an `Idempotency-Key`. Inside it, new ids are derived from the
 * key's claim (the same sequence each time the request runs), and every command the request appends
 * is numbered per stream; a run resumed after a crash therefore addresses the same objects and skips
 * the commands whose events the interrupted run already appended (AggregateExecutor), so it finishes
 * the first run instead of repeating it.
 */
export interface IdempotentScope {
  /** Identifies the claim (stable across resumptions). */
  readonly seed: string;
  readonly idCounters: Map<string, number>;
  readonly stepCounters: Map<string, number>;
}

const storage = new AsyncLocalStorage<IdempotentScope>();

export function runInIdempotentScope<T>(seed: string, work: () => Promise<T>): Promise<T> {
  return storage.run({ seed, idCounters: new Map(), stepCounters: new Map() }, work);
}

export function currentIdempotentScope(): IdempotentScope | undefined {
  return storage.getStore();
}

/**
 * A seed that starts with the time of its claim (`t`, then 8 base62 digits of ms: ids.ts makes them),
 * so that the ids derived from it sort in time as other ids do. Seeds of claims made before these had
 * no time (a UUID) and derive their ids as they always did.
 */
const TIMED_SEED = /^t([0-9A-Za-z]{8})[0-9A-Za-z]+$/;

/**
 * The next id suffix for `prefix` in the scope: deterministic, 24 base62-ish characters. With a timed
 * seed, the claim's time first (8 characters) and 16 derived: every collection's `id` key and the
 * feed's object index are B-trees, where keys at random places miss every page cache once the tables
 * are large (see newId); otherwise 24 derived.
 */
export function scopedIdSuffix(scope: IdempotentScope, prefix: string, alphabet: string): string {
  const n = (scope.idCounters.get(prefix) ?? 0) + 1;
  scope.idCounters.set(prefix, n);
  const digest = createHash('sha256').update(`${scope.seed}|${prefix}|${n}`).digest();
  const time = TIMED_SEED.exec(scope.seed)?.[1] ?? '';
  let out = time;
  for (let i = 0; out.length < 24; i++) out += alphabet[digest[i % digest.length] % alphabet.length];
  return out;
}

/** The ordinal of the next command on `streamId` in the scope (1 for the first). */
export function nextStep(scope: IdempotentScope, streamId: string): number {
  const n = (scope.stepCounters.get(streamId) ?? 0) + 1;
  scope.stepCounters.set(streamId, n);
  return n;
}
