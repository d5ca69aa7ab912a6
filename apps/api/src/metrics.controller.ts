import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '#platform/config.js';
import { ApiError } from '#shared/errors.js';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '#accounts/http/basic-auth.guard.js';
import type { EventStore } from '#event-store/event-store.port.js';
import { decodePosition } from '#event-store/positions.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { metricsRegistry, projectionCaughtUp, projectionLag, reportLeases, reportParkedProjections, schedulerBacklog } from '#platform/metrics.js';
import { LeaseManager } from '#platform/leases.js';
import { EVENT_STORE, READ_STORE, CLOCK, CONFIG } from '#platform/tokens.js';
import type { Clock } from '#shared/clock.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { NO_DEADLINE } from '#shared/deadlines.js';

const BACKLOG_CAP = 10_000;

/** A loopback address (127.0.0.0/8, ::1, or IPv4 in IPv6 form): a caller on this machine. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** Whether a caller at `address` presenting `authorization` may read `/metrics`, given METRICS_TOKEN (`token`). */
export function mayReadMetrics(address: string | undefined, authorization: string | undefined, token: string | null): boolean {
  if (isLoopback(address)) return true;
  const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
  // Compared as digests: constant time whatever the lengths.
  return token !== null && given !== undefined && timingSafeEqual(sha256(given), sha256(token));
}

/**
 * `GET /metrics`: Prometheus text format, without an API key. By default only a caller on this machine
 * (loopback) is answered; anyone else gets the API's 404, as if there were no such path. With
 * METRICS_TOKEN set, a scraper elsewhere presents it as `Authorization: Bearer <token>`.
 */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    private readonly engine: ProjectionEngine,
    private readonly scheduler: Scheduler,
    private readonly leases: LeaseManager,
  ) {}

  @Get('metrics')
  @Public()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(@Req() request: FastifyRequest): Promise<string> {
    if (!mayReadMetrics(request.socket?.remoteAddress ?? request.ip, request.headers.authorization, this.config.metricsToken)) throw new ApiError(404, 'invalid_request_error', 'resource_missing', 'Unrecognized request URL.');
    const head = await this.events.headPosition();
    const names = this.engine.names();
    for (const name of names) {
      const checkpoint = await this.store.getCheckpoint(name);
      const behind = head === null ? 0n : checkpoint === null ? decodePosition(head).commit : decodePosition(head).commit - decodePosition(checkpoint).commit;
      projectionLag.set({ projection: name }, Number(behind < 0n ? 0n : behind));
      projectionCaughtUp.set({ projection: name }, behind <= 0n ? 1 : 0);
    }
    // Until the pipeline parks projections, none is parked (see reportParkedProjections).
    reportParkedProjections(names, []);
    const now = this.clock.now().toISOString();
    for (const source of this.scheduler.deadlineSources) {
      schedulerBacklog.set({ kind: source.name }, await this.dueCount(source.collection, now));
    }
    reportLeases((await this.leases.status()).units);
    return metricsRegistry.metrics();
  }

  private async dueCount(collection: string, now: string): Promise<number> {
    let count = 0;
    let after: { value: string; id: string } | undefined;
    for (;;) {
      const docs = await this.store.find<{ id: string; _due_at: string }>(collection, { where: { _clock: '' }, orderBy: { field: '_due_at', direction: 'asc' }, after, limit: 500 });
      for (const doc of docs) {
        if (!doc._due_at || doc._due_at > now || doc._due_at === NO_DEADLINE) return count;
        if (++count >= BACKLOG_CAP) return count;
      }
      if (docs.length < 500) return count;
      const last = docs[docs.length - 1];
      after = { value: last._due_at, id: last.id };
    }
  }
}
