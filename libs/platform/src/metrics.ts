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
