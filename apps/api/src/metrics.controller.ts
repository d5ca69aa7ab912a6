import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../../libs/accounts/src/http/basic-auth.guard.js';
import type { EventStore } from '../../../libs/event-store/src/event-store.port.js';
import { decodePosition } from '../../../libs/event-store/src/positions.js';
import type { ReadStore } from '../../../libs/read-store/src/read-store.port.js';
import { metricsRegistry, projectionCaughtUp, projectionLag, reportParkedProjections, schedulerBacklog } from '../../../libs/platform/src/metrics.js';
import { EVENT_STORE, READ_STORE, CLOCK } from '../../../libs/platform/src/tokens.js';
import type { Clock } from '../../../libs/shared/src/clock.js';
import { ProjectionEngine } from '../../../projections/runtime/projection-engine.js';
import { Scheduler } from '../../../libs/scheduling/src/scheduler.js';
import { NO_DEADLINE } from '../../../projections/deadlines.js';

const BACKLOG_CAP = 10_000;

/** `GET /metrics`: Prometheus text format (no authentication: expose it only on the internal network). */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly engine: ProjectionEngine,
    private readonly scheduler: Scheduler,
  ) {}

  @Get('metrics')
  @Public()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(): Promise<string> {
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
