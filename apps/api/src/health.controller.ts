import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../../../libs/accounts/src/http/basic-auth.guard.js';
import type { EventStore } from '../../../libs/event-store/src/event-store.port.js';
import type { ReadStore } from '../../../libs/read-store/src/read-store.port.js';
import { EVENT_STORE, READ_STORE } from '../../../libs/platform/src/tokens.js';
import { ProjectionEngine } from '../../../projections/runtime/projection-engine.js';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly store: ReadStore,
    private readonly engine: ProjectionEngine,
  ) {}

  @Get('health')
  @Public()
  @ApiOperation({ summary: 'Liveness and projection lag (no authentication)' })
  async health() {
    const head = await this.events.headPosition();
    const projections = await Promise.all(
      this.engine.names().map(async (name) => {
        const checkpoint = await this.store.getCheckpoint(name);
        return { name, caught_up: head === null || (checkpoint !== null && checkpoint >= head) };
      }),
    );
    return { status: 'ok', event_store: this.events.kind, read_store: this.store.kind, projections };
  }
}
