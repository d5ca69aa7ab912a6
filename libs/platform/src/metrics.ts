import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics (one registry per process, served at `/metrics`). Values that
 * need a store read (projection lag, scheduler backlog) are computed when scraped (apps/api metrics).
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'billing_' });

export const httpRequestDuration = new Histogram({
  name: 'billing_http_request_duration_seconds',
  help: 'HTTP request latency by method, route pattern and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const eventsAppended = new Counter({
  name: 'billing_events_appended_total',
  help: 'Events appended by commands, by stream category',
  labelNames: ['category'] as const,
  registers: [metricsRegistry],
});

export const projectionLag = new Gauge({
  name: 'billing_projection_lag',
  help: 'How far each projection checkpoint is behind the event store head (events for the embedded store, log bytes for EventStoreDB)',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

export const projectionCaughtUp = new Gauge({
  name: 'billing_projection_caught_up',
  help: '1 when the projection has applied every event, else 0',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

export const schedulerBacklog = new Gauge({
  name: 'billing_scheduler_backlog',
  help: 'Real-time deadlines (renewals, retries, expiries, …) due now and not yet run, by kind (counted up to 10,000)',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

/**
 * The workers' leases (libs/platform/src/leases.ts), read from the store when scraped: 1 for the
 * worker holding each unit now (an expired or handed-back lease has none), and since when.
 */
export const leaseHeld = new Gauge({
  name: 'billing_lease_held',
  help: 'Background work held by a live worker: 1 per unit and the worker holding it (libs/platform/src/leases.ts)',
  labelNames: ['unit', 'worker'] as const,
  registers: [metricsRegistry],
});

export const leaseSince = new Gauge({
  name: 'billing_lease_since_seconds',
  help: 'When the worker holding each unit took it (Unix time, seconds); absent while nobody holds it',
  labelNames: ['unit', 'worker'] as const,
  registers: [metricsRegistry],
});

export const leaseEpoch = new Gauge({
  name: 'billing_lease_epoch',
  help: 'The epoch of each unit\'s lease: how many times it has been taken (a takeover or a hand-over adds one)',
  labelNames: ['unit'] as const,
  registers: [metricsRegistry],
});

/** The leases as stored now (the gauges are reset first: a unit that changed hands drops its old worker's series). */
export function reportLeases(units: { unit: string; holder: string | null; epoch: number; since: string; held: boolean }[]): void {
  leaseHeld.reset();
  leaseSince.reset();
  for (const u of units) {
    leaseEpoch.set({ unit: u.unit }, u.epoch);
    if (!u.held || !u.holder) continue;
    leaseHeld.set({ unit: u.unit, worker: u.holder }, 1);
    leaseSince.set({ unit: u.unit, worker: u.holder }, Date.parse(u.since) / 1000);
  }
}

/**
 * Projections parked after a poison event. The projection pipeline (libs/projection-runtime) reports
 * them through `reportParkedProjections` once it parks; until then the gauge stays 0.
 */
export const projectionsParked = new Gauge({
  name: 'billing_projections_parked',
  help: 'Projections stopped on an event they cannot apply (parked), by projection',
  labelNames: ['projection'] as const,
  registers: [metricsRegistry],
});

/** The hook for the projection pipeline: the projections parked now (all others are reset to 0). */
export function reportParkedProjections(all: string[], parked: string[]): void {
  for (const name of all) projectionsParked.set({ projection: name }, parked.includes(name) ? 1 : 0);
}
