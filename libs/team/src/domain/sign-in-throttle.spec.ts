import { afterFailure, afterSuccess, MAX_DELAY_MS, THROTTLE_RULES, type ThrottleEntry, type ThrottleScope, throttleState } from './sign-in-throttle.js';

const T0 = new Date('2030-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTES = 60_000;

/** `n` failures one second apart from T0; the entry and the time of the last. */
function failures(n: number, scope: ThrottleScope = 'email', start: ThrottleEntry = afterSuccess(), from = 0) {
  let entry = start;
  let now = at(from);
  for (let i = 0; i < n; i++) {
    now = at(from + i * 1000);
    entry = afterFailure(entry, now, scope);
  }
  return { entry, now };
}

describe('per e-mail', () => {
  test('the rules: lock at the 5th failure for 15 minutes, delays from the 3rd', () => {
    expect(THROTTLE_RULES.email).toEqual({ lockAt: 5, delayFrom: 3, lockMs: 15 * MINUTES });
  });

  test('4 failures do not lock; the delay is 0 after 1 and 2, then 500 ms and 1 s', () => {
    const delays = [1, 2, 3, 4].map((n) => {
      const { entry, now } = failures(n);
      const state = throttleState(entry, now, 'email');
      expect(state.locked).toBe(false);
      expect(state.lockedUntil).toBeNull();
      return state.delayMs;
    });
    expect(delays).toEqual([0, 0, 500, 1000]);
  });

  test('the delay is counted from the last failure: waiting it out leaves nothing to wait', () => {
    const { entry, now } = failures(4);
    expect(throttleState(entry, new Date(now.getTime() + 600), 'email').delayMs).toBe(400);
    expect(throttleState(entry, new Date(now.getTime() + 5000), 'email').delayMs).toBe(0);
  });

  test('the 5th failure locks until exactly 15 minutes after it; the lock ends by itself', () => {
    const { entry, now } = failures(5);
    const until = new Date(now.getTime() + 15 * MINUTES);
    expect(entry.locked_until).toBe(until.toISOString());
    expect(throttleState(entry, now, 'email')).toEqual({ locked: true, lockedUntil: until, delayMs: 0 });
    expect(throttleState(entry, new Date(until.getTime() - 1), 'email').locked).toBe(true);
    expect(throttleState(entry, until, 'email')).toEqual({ locked: false, lockedUntil: null, delayMs: 0 });
  });

  test('after the lock ends the count starts again: the next failure is the first', () => {
    const { entry, now } = failures(5);
    const later = new Date(now.getTime() + 15 * MINUTES);
    const next = afterFailure(entry, later, 'email');
    expect(next).toEqual({ failures: 1, locked_until: null, last_failure_at: later.toISOString() });
    expect(throttleState(next, later, 'email')).toEqual({ locked: false, lockedUntil: null, delayMs: 0 });
    // ...and four more lock it again.
    const { entry: again } = failures(4, 'email', next, 15 * MINUTES + 10_000);
    expect(throttleState(again, at(15 * MINUTES + 14_000), 'email').locked).toBe(true);
  });

  test('failures racing the lock count but do not lengthen it', () => {
    const { entry, now } = failures(5);
    const raced = afterFailure(entry, new Date(now.getTime() + 60_000), 'email');
    expect(raced.locked_until).toBe(entry.locked_until);
    expect(raced.failures).toBe(6);
  });

  test('failures older than 15 minutes are forgotten', () => {
    const { entry, now } = failures(4);
    const later = new Date(now.getTime() + 15 * MINUTES);
    expect(throttleState(entry, later, 'email').delayMs).toBe(0);
    const next = afterFailure(entry, later, 'email');
    expect(next.failures).toBe(1);
    expect(next.locked_until).toBeNull();
    // Still remembered a moment before.
    expect(afterFailure(entry, new Date(later.getTime() - 1), 'email').locked_until).not.toBeNull();
  });

  test('a success resets: four failures, a success, four failures again do not lock', () => {
    const { entry: four } = failures(4);
    expect(afterSuccess()).toEqual({ failures: 0, locked_until: null, last_failure_at: null });
    const { entry, now } = failures(4, 'email', afterSuccess(), 10_000);
    expect(four.failures).toBe(4);
    expect(entry.failures).toBe(4);
    expect(throttleState(entry, now, 'email').locked).toBe(false);
    // Without the success in between, the same failures lock.
    const { entry: eight, now: then } = failures(4, 'email', four, 10_000);
    expect(throttleState(eight, then, 'email').locked).toBe(true);
  });

  test('an entry survives its stored JSON form', () => {
    const { entry, now } = failures(5);
    const stored = JSON.parse(JSON.stringify({ ...entry, id: 'email:abc' })) as ThrottleEntry & { id: string };
    expect(throttleState(stored, now).locked).toBe(true);
  });
});

describe('per client address', () => {
  test('the rules: lock at the 20th failure for 15 minutes, delays from the 10th', () => {
    expect(THROTTLE_RULES.address).toEqual({ lockAt: 20, delayFrom: 10, lockMs: 15 * MINUTES });
  });

  test('19 failures do not lock, with no delay before the 10th, then growing delays (capped)', () => {
    const delays = Array.from({ length: 19 }, (_, i) => {
      const { entry, now } = failures(i + 1, 'address');
      const state = throttleState(entry, now, 'address');
      expect(state.locked).toBe(false);
      return state.delayMs;
    });
    expect(delays.slice(0, 9)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(delays.slice(9, 13)).toEqual([500, 1000, 2000, 4000]);
    expect(Math.max(...delays)).toBe(MAX_DELAY_MS);
  });

  test('the 20th failure locks for 15 minutes', () => {
    const { entry, now } = failures(20, 'address');
    expect(throttleState(entry, now, 'address')).toEqual({ locked: true, lockedUntil: new Date(now.getTime() + 15 * MINUTES), delayMs: 0 });
    expect(throttleState(entry, new Date(now.getTime() + 15 * MINUTES), 'address').locked).toBe(false);
  });

  test("without a scope, an entry whose id starts with 'ip:' follows the address's rules, any other the e-mail's", () => {
    const { entry, now } = failures(5, 'address');
    expect(throttleState({ ...entry, id: 'ip:203.0.113.9' }, now)).toEqual({ locked: false, lockedUntil: null, delayMs: 0 });
    const { entry: byEmail, now: then } = failures(4, 'email');
    expect(throttleState({ ...byEmail, id: 'email:0f0f' }, then).delayMs).toBe(1000);
    expect(throttleState({ ...byEmail, id: 'ip:203.0.113.9' }, then).delayMs).toBe(0);
  });
});
