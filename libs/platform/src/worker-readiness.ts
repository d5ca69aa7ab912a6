import type { LeaseStatus, WorkerStatus } from './leases.js';

/**
 * A ROLE=worker process's readiness (`GET /health/ready` on HEALTH_PORT): 503 when the worker holds
 * nothing it should, read from the stored leases (LeaseManager.status()). planLeases settles the
 * leases within one renewal of a change (a free unit is taken at the next tick, one left untaken for a
 * whole TTL is taken by any worker whatever its share, a holder above its share hands back at its next
 * renewal), so each condition below is a fault only once it has lasted a TTL plus one renewal period
 * (`graceMs`), the longest healthy workers take to settle:
 * - its own heartbeat is not live (its lease loop is not renewing: a stalled event loop, a store
 *   refusing its writes);
 * - a unit it may take has had no live holder for longer than the grace (expired or handed back that
 *   long ago; a unit never taken counts from this worker's start): nobody is doing that work and this
 *   worker, which could, is not taking it;
 * - it holds fewer than its fair share (ceil(units the live workers may take / live workers)) while
 *   another live worker holds more than the share, of units this worker may take, for longer than the
 *   grace (`underSince`, kept by the caller between two checks): the rebalancing is not happening.
 * Pure: the caller keeps `underSince` from one answer to the next.
 */
export interface WorkerReadinessInput {
  /** This worker's id (LeaseManager.worker). */
  me: string;
  /** Wall clock, ms. */
  now: number;
  ttlMs: number;
  renewMs: number;
  /** The units this worker may take (LeaseManager.registered()). */
  can: string[];
  units: LeaseStatus[];
  workers: (WorkerStatus & { can?: string[] })[];
  /** Since when (ms) this worker has been seen under its share while another is above it; null: it was not at the last check. */
  underSince: number | null;
}

export interface WorkerReadiness {
  ready: boolean;
  /** Why not, one sentence each (empty when ready). */
  problems: string[];
  share: number;
  holds: number;
  underSince: number | null;
}

export function workerReadiness(input: WorkerReadinessInput): WorkerReadiness {
  const { me, now, ttlMs, renewMs, can } = input;
  const graceMs = ttlMs + renewMs;
  const problems: string[] = [];
  const self = input.workers.find((w) => w.worker === me);
  if (!self || !self.live) problems.push('this worker\'s heartbeat is not live: its leases are not being renewed');

  const started = self ? Date.parse(self.since) : now;
  const byUnit = new Map(input.units.map((u) => [u.unit, u]));
  const orphaned = can.filter((unit) => {
    const lease = byUnit.get(unit);
    if (lease?.held) return false;
    const freeSince = lease ? Date.parse(lease.expires_at) : started;
    return now - freeSince > graceMs;
  });
  if (orphaned.length) problems.push(`no live worker has held ${orphaned.join(', ')} for more than ${graceMs} ms, and this worker, which may take ${orphaned.length === 1 ? 'it' : 'them'}, does not`);

  const live = input.workers.filter((w) => w.live && w.worker !== me);
  const all = new Set(can);
  for (const w of live) for (const u of w.can ?? []) all.add(u);
  const share = Math.ceil(all.size / (live.length + 1));
  const holds = input.units.filter((u) => u.held && u.holder === me).length;
  const mayTake = new Set(can);
  const above = live.filter((w) => w.units.length > share && w.units.some((u) => mayTake.has(u)));
  const under = holds < share && above.length > 0;
  const underSince = under ? (input.underSince ?? now) : null;
  if (underSince !== null && now - underSince > graceMs) {
    problems.push(`this worker holds ${holds} unit(s), under its share of ${share}, while ${above.map((w) => `${w.worker} holds ${w.units.length}`).join(', ')}, for more than ${graceMs} ms`);
  }
  return { ready: problems.length === 0, problems, share, holds, underSince };
}
