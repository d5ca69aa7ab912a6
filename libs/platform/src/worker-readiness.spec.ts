import type { LeaseStatus, WorkerStatus } from './leases.js';
import { workerReadiness, type WorkerReadinessInput } from './worker-readiness.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const TTL = 10_000;
const RENEW = 2000;
const iso = (ms: number) => new Date(ms).toISOString();
const UNITS = ['idempotency-prune', 'invoicing', 'mail', 'projections', 'scheduler', ...Array.from({ length: 8 }, (_, p) => `webhooks/${p}`)];

const unit = (id: string, holder: string | null, expiresAt: number, now = T0): LeaseStatus => ({
  unit: id,
  holder,
  epoch: 1,
  since: iso(T0 - 60_000),
  expires_at: iso(expiresAt),
  held: holder !== null && expiresAt > now,
  mine: false,
});
const worker = (id: string, units: string[], live = true, can = UNITS): WorkerStatus => ({ worker: id, host: 'h', pid: 1, since: iso(T0 - 60_000), expires_at: iso(live ? T0 + TTL : T0 - 1), live, units, can });

function input(partial: Partial<WorkerReadinessInput>): WorkerReadinessInput {
  return { me: 'wrk_a', now: T0, ttlMs: TTL, renewMs: RENEW, can: UNITS, units: [], workers: [], underSince: null, ...partial };
}

/** wrk_a holds the first `a` units, wrk_b the rest (both live, leases valid). */
function split(a: number) {
  const units = UNITS.map((u, i) => unit(u, i < a ? 'wrk_a' : 'wrk_b', T0 + TTL));
  const workers = [worker('wrk_a', UNITS.slice(0, a)), worker('wrk_b', UNITS.slice(a))];
  return { units, workers };
}

describe('workerReadiness (pure)', () => {
  it('two workers at their shares (7 and 6 of 13) are both ready', () => {
    const { units, workers } = split(6);
    expect(workerReadiness(input({ units, workers }))).toMatchObject({ ready: true, problems: [], share: 7, holds: 6, underSince: null });
    expect(workerReadiness(input({ me: 'wrk_b', units, workers })).ready).toBe(true);
  });

  it('a worker whose own heartbeat is not live is not ready', () => {
    const { units, workers } = split(6);
    workers[0] = worker('wrk_a', UNITS.slice(0, 6), false);
    const verdict = workerReadiness(input({ units, workers }));
    expect(verdict.ready).toBe(false);
    expect(verdict.problems.join()).toMatch(/heartbeat/);
  });

  it('a unit it may take, free for more than TTL + RENEW, makes it unready; free for less, not yet', () => {
    const { units, workers } = split(6);
    // wrk_b died: its lease on webhooks/7 expired; the other units were taken over.
    units[12] = unit('webhooks/7', 'wrk_b', T0 - TTL - RENEW - 1);
    const late = workerReadiness(input({ units, workers }));
    expect(late.ready).toBe(false);
    expect(late.problems.join()).toMatch(/webhooks\/7/);
    units[12] = unit('webhooks/7', 'wrk_b', T0 - TTL);
    expect(workerReadiness(input({ units, workers })).ready).toBe(true);
  });

  it('a unit handed back (no holder) counts from when it was handed back; one it may not take does not count', () => {
    const { units, workers } = split(6);
    units[4] = unit('scheduler', null, T0 - TTL - RENEW - 1);
    expect(workerReadiness(input({ units, workers })).ready).toBe(false);
    // SCHEDULER=off here: not this worker's to take.
    expect(workerReadiness(input({ units, workers, can: UNITS.filter((u) => u !== 'scheduler') })).ready).toBe(true);
  });

  it('a unit never taken counts from this worker\'s start', () => {
    const { units, workers } = split(6);
    const without = units.filter((u) => u.unit !== 'mail');
    expect(workerReadiness(input({ units: without, workers })).ready).toBe(false); // started a minute ago
    workers[0] = { ...workers[0], since: iso(T0 - 1000) };
    expect(workerReadiness(input({ units: without, workers })).ready).toBe(true);
  });

  it('under its share while another holds more: ready at first, unready once it lasted more than TTL + RENEW', () => {
    const { units, workers } = split(0); // wrk_b holds all 13, wrk_a nothing
    const first = workerReadiness(input({ units, workers }));
    expect(first).toMatchObject({ ready: true, holds: 0, share: 7, underSince: T0 });
    const later = workerReadiness(input({ units, workers, now: T0 + TTL + RENEW + 1, underSince: first.underSince }));
    expect(later.ready).toBe(false);
    expect(later.problems.join()).toMatch(/under its share of 7.*wrk_b holds 13/);
    // Settled: the clock of the imbalance is reset.
    const settled = split(6);
    expect(workerReadiness(input({ ...settled, now: T0 + 60_000, underSince: first.underSince }))).toMatchObject({ ready: true, underSince: null });
  });

  it('holding less than the share is fine when the others hold no more than theirs, or only what this worker may not take', () => {
    // Three workers, share 5: 5, 5, 3.
    const units = UNITS.map((u, i) => unit(u, i < 3 ? 'wrk_a' : i < 8 ? 'wrk_b' : 'wrk_c', T0 + TTL));
    const workers = [worker('wrk_a', UNITS.slice(0, 3)), worker('wrk_b', UNITS.slice(3, 8)), worker('wrk_c', UNITS.slice(8))];
    expect(workerReadiness(input({ units, workers, underSince: T0 - 60_000 }))).toMatchObject({ ready: true, share: 5, underSince: null });
    // wrk_a may take only the scheduler: wrk_b holding 13 of which not the scheduler leaves it nothing to take.
    const { units: u2 } = split(0);
    const alone = u2.map((u) => (u.unit === 'scheduler' ? unit('scheduler', 'wrk_a', T0 + TTL) : u));
    const w2b = [worker('wrk_a', ['scheduler'], true, ['scheduler']), worker('wrk_b', UNITS.filter((u) => u !== 'scheduler'), true, UNITS.filter((u) => u !== 'scheduler'))];
    expect(workerReadiness(input({ can: ['scheduler'], units: alone, workers: w2b, underSince: T0 - 60_000 }))).toMatchObject({ ready: true, holds: 1, underSince: null });
  });
});
