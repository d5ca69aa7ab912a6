import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { type AttemptOutcome, type DeliveryCommand, type DeliveryEvent, deliveryDecider, RETRY_SCHEDULE_MS } from './delivery.decider.js';

const t0 = new Date('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const iso = (ms: number) => at(ms).toISOString();
const fail: AttemptOutcome = { ok: false, status_code: 500, error: null };
const ok: AttemptOutcome = { ok: true, status_code: 200, error: null };
const attempt = (outcome: AttemptOutcome, ms = 0, jitter = 0): DeliveryCommand => ({ type: 'RecordAttempt', now: at(ms), outcome, jitter });
const queued: DeliveryEvent = { type: 'delivery.queued', data: { next_attempt_at: iso(0), resend: false } };
const retry = (n: number, next: number): DeliveryEvent => ({ type: 'delivery.retry_scheduled', data: { attempt: n, next_attempt_at: iso(next) } });

describe('delivery scheduling decisions', () => {
  test('an event in the feed is queued for now, once', () => {
    given(deliveryDecider).when({ type: 'QueueDelivery', now: t0 }).then([queued]);
    given(deliveryDecider, [queued]).when({ type: 'QueueDelivery', now: at(10) }).then([]);
  });

  test('a 2xx attempt: delivered, nothing more to do', () => {
    given(deliveryDecider, [queued]).when(attempt(ok)).then([{ type: 'delivery.succeeded', data: { attempt: 1, at: iso(0) } }]);
    given(deliveryDecider, [queued, { type: 'delivery.succeeded', data: { attempt: 1, at: iso(0) } }]).when(attempt(fail, 5)).then([]);
  });

  test('the first failure is retried 5 seconds later (no jitter drawn), the second 5 minutes after that', () => {
    given(deliveryDecider, [queued]).when(attempt(fail)).then([retry(1, 5_000)]);
    given(deliveryDecider, [queued, retry(1, 5_000)]).when(attempt({ ok: false, status_code: null, error: 'timeout' }, 5_000)).then([retry(2, 305_000)]);
  });

  test('jitter stretches a delay by at most 20 %', () => {
    const [e] = given(deliveryDecider, [queued]).when(attempt(fail, 0, 0.999999)).events();
    expect(e.type).toBe('delivery.retry_scheduled');
    const next = Date.parse((e.data as { next_attempt_at: string }).next_attempt_at) - t0.getTime();
    expect(next).toBeGreaterThan(5_000);
    expect(next).toBeLessThanOrEqual(6_000);
  });

  test('ten attempts over about three days; the tenth failure gives up and disables the endpoint', () => {
    const past: DeliveryEvent[] = [queued];
    let now = 0;
    for (let n = 1; n <= RETRY_SCHEDULE_MS.length; n++) {
      const next = now + RETRY_SCHEDULE_MS[n - 1];
      past.push(...given(deliveryDecider, past).when(attempt(fail, now)).then([retry(n, next)]));
      now = next;
    }
    expect(now / 3_600_000).toBeGreaterThan(70);
    expect(now / 3_600_000).toBeLessThan(74);
    given(deliveryDecider, past).when(attempt(fail, now)).then([{ type: 'delivery.gave_up', data: { attempt: 10, at: iso(now), disable_endpoint: true } }]);
    // A late success after giving up changes nothing; a re-send starts a fresh schedule.
    const gaveUp = [...past, { type: 'delivery.gave_up', data: { attempt: 10, at: iso(now), disable_endpoint: true } } as DeliveryEvent];
    given(deliveryDecider, gaveUp).when(attempt(ok, now + 1)).then([]);
    given(deliveryDecider, gaveUp).when({ type: 'ResendDelivery', now: at(now + 1) }).then([{ type: 'delivery.queued', data: { next_attempt_at: iso(now + 1), resend: true } }]);
    const resent = [...gaveUp, { type: 'delivery.queued', data: { next_attempt_at: iso(now + 1), resend: true } } as DeliveryEvent];
    given(deliveryDecider, resent).when(attempt(fail, now + 1)).then([retry(11, now + 1 + 5_000)]);
  });

  test('a shorter schedule (as configured for tests) gives up after its last delay', () => {
    const schedule = [100, 200];
    const cmd = (ms: number): DeliveryCommand => ({ type: 'RecordAttempt', now: at(ms), outcome: fail, jitter: 0, schedule });
    given(deliveryDecider, [queued]).when(cmd(0)).then([retry(1, 100)]);
    given(deliveryDecider, [queued, retry(1, 100)]).when(cmd(100)).then([retry(2, 300)]);
    given(deliveryDecider, [queued, retry(1, 100), retry(2, 300)]).when(cmd(300)).then([{ type: 'delivery.gave_up', data: { attempt: 3, at: iso(300), disable_endpoint: true } }]);
  });
});
