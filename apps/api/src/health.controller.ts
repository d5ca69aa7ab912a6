import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { PlatformLifecycle } from '#platform/platform.module.js';
import { Public } from '#accounts/http/basic-auth.guard.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { CONFIG, EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { Config } from '#platform/config.js';
import { workerReadiness } from '#platform/worker-readiness.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { LeaseManager } from '#platform/leases.js';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly store: ReadStore,
    private readonly engine: ProjectionEngine,
    private readonly lifecycle: PlatformLifecycle,
    private readonly leases: LeaseManager,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** Since when this worker has been under its share while another is above it (workerReadiness keeps it between checks). */
  private underSince: number | null = null;

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness and projection lag (no authentication)' })
  async health() {
    const projections = (await this.engine.status()).map((p) => ({
      name: p.name,
      caught_up: p.caught_up,
      parked: p.parked ? { event_id: p.parked.event_id, event_type: p.parked.event_type, position: p.parked.position, error: p.parked.error, parked_at: p.parked.parked_at } : null,
    }));
    // `status` stays `ok` (the process is alive); `degraded` says a read model has stopped, or an
    // embedded store's writer thread stopped with writes in flight (until a write succeeds again).
    const writers = this.writerFailures();
    const status = projections.some((p) => p.parked) || writers.length ? 'degraded' : 'ok';
    // Which worker holds which background work, and since when (libs/platform/src/leases.ts); `worker`: this process's id (null: it takes none, ROLE=api).
    const leases = await this.leases.status();
    const workers = {
      worker: leases.worker,
      held_here: leases.units.filter((u) => u.mine).map((u) => u.unit),
      units: leases.units.map((u) => ({ unit: u.unit, holder: u.held ? u.holder : null, epoch: u.epoch, since: u.held ? u.since : null, expires_at: u.expires_at })),
      workers: leases.workers.filter((w) => w.live).map((w) => ({ worker: w.worker, host: w.host, pid: w.pid, since: w.since, units: w.units })),
    };
    return { status, event_store: this.events.kind, read_store: this.store.kind, projections, leases: workers, ...(writers.length ? { writer_errors: writers } : {}) };
  }

  private writerFailures(): string[] {
    return [this.events, this.store].map((s) => (s as { writerFailure?: Error | null }).writerFailure?.message).filter((m): m is string => Boolean(m));
  }

  /**
   * Readiness (for a load balancer or orchestrator): 200 once start-up finished and both stores answer
   * within 2 s, else 503. `/health` stays the liveness check.
   */
  @Get('health/ready')
  @Public()
  @ApiOperation({ summary: 'Readiness: start-up finished and both stores answer (503 otherwise; no authentication)' })
  @ApiResponse({ status: 200, description: 'Ready' })
  @ApiResponse({ status: 503, description: 'Not ready: starting, or a store does not answer' })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const checks = { started: this.lifecycle.ready, event_store: false, read_store: false };
    const within = <T>(work: Promise<T>) => Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref())]);
    checks.event_store = await within(this.events.headPosition()).then(() => true, () => false);
    checks.read_store = await within(this.store.getCheckpoint(this.engine.names()[0] ?? 'none')).then(() => true, () => false);
    let ok = checks.started && checks.event_store && checks.read_store && this.writerFailures().length === 0;
    // A ROLE=worker process (HEALTH_PORT) is also unready when it holds nothing it should (libs/platform/src/worker-readiness.ts).
    // ROLE=all keeps its readiness for its API traffic; its leases are on /health.
    if (this.config.role !== 'worker' || !ok || this.leases.registered().length === 0) {
      reply.status(ok ? 200 : 503);
      return { status: ok ? 'ready' : 'unavailable', ...checks };
    }
    const status = await within(this.leases.status()).catch(() => null);
    const leaseOptions = this.leases.options;
    const verdict = status
      ? workerReadiness({ me: this.leases.worker, now: Date.now(), ttlMs: leaseOptions.ttlMs, renewMs: leaseOptions.renewMs, can: this.leases.registered(), units: status.units, workers: status.workers, underSince: this.underSince })
      : { ready: false, problems: ['the leases could not be read within 2 s'], share: 0, holds: 0, underSince: this.underSince };
    this.underSince = verdict.underSince;
    ok = verdict.ready;
    reply.status(ok ? 200 : 503);
    return { status: ok ? 'ready' : 'unavailable', ...checks, leases: { worker: this.leases.worker, holds: verdict.holds, share: verdict.share, problems: verdict.problems } };
  }
}
