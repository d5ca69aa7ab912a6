import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK, SystemClock } from '#shared/clock.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import type { ServiceProjections } from '#projection-runtime/projection.js';
import { StateCollections } from './state-collections.js';
import { AggregateExecutor } from './aggregate-executor.js';
import { type Config, redactUrl } from './config.js';
import { applyHeapPolicy } from './heap-policy.js';
import { retryWithBackoff } from './retry.js';
import { ReadModels } from './read-models.js';
import { WriteThenRead } from './write-then-read.js';
import { createEventStore, createReadStore, pipelineThreadFiles } from './stores.js';
import { CONFIG, EVENT_STORE, READ_STORE } from './tokens.js';

/**
 * What the projection pipeline reports (a projection that failed and is retried, one parked, a batch
 * that could not be read or committed) goes to the service's logger like every other line: one JSON
 * line with the error's stack (never console.error beside the structured logs).
 */
const projectionLogger = new Logger('projections');
function projectionLog(message: string, error?: unknown): void {
  if (error === undefined) projectionLogger.error({ msg: message });
  else projectionLogger.error({ msg: message, err: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}

export interface PlatformOptions {
  config: Config;
  clock?: Clock;
  eventStore?: EventStore;
  readStore?: ReadStore;
}

/** Starts the projectors (unless ROLE=api) once the app is up, and closes the stores on shutdown. */
@Injectable()
export class PlatformLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('platform');
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly engine: ProjectionEngine,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_STORE) private readonly store: ReadStore,
    private readonly executor: AggregateExecutor,
    private readonly stateCollections: StateCollections,
  ) {}

  /** True once the stores answered and the projections started: what `/health/ready` reports. */
  ready = false;

  async onApplicationBootstrap(): Promise<void> {
    // A store briefly unreachable at start (a container still starting) is retried with backoff.
    await retryWithBackoff(
      async () => {
        await this.events.headPosition();
        await this.engine.init();
        await this.store.ensureCollections(this.stateCollections.all());
        if (this.config.role !== 'api') await this.engine.catchUp();
      },
      {
        maxMs: this.config.startupRetryMs,
        onRetry: (error, attempt, delay) =>
          this.logger.warn(`a store is not answering yet (attempt ${attempt}: ${redactUrl(String((error as Error)?.message ?? error))}); retrying in ${delay} ms`),
      },
    );
    if (this.config.role !== 'api') {
      // The pipeline shows the executor what other processes write: remembered states need no tail read.
      this.executor.watchForeignWrites(this.engine.pipeline);
      this.engine.start();
    }
    this.ready = true;
    this.logger.log(`event store: ${this.events.kind}, read models: ${this.store.kind}, role: ${this.config.role}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.engine.stop();
    await this.events.close();
    await this.store.close();
  }
}

/**
 * The ports (event store, read store, clock), the write path and the projections, for every context.
 * The projections are the service's (projections/), handed over by the composition root (AppModule).
 */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformOptions, projections: ServiceProjections): DynamicModule {
    applyHeapPolicy(options.config.heapGrowingPercent ?? 0);
    const eventStore = options.eventStore ?? createEventStore(options.config);
    const readStore = options.readStore ?? createReadStore(options.config);
    return {
      module: PlatformModule,
      providers: [
        { provide: CONFIG, useValue: options.config },
        { provide: CLOCK, useValue: options.clock ?? new SystemClock() },
        { provide: EVENT_STORE, useValue: eventStore },
        { provide: READ_STORE, useValue: readStore },
        {
          provide: ProjectionEngine,
          useFactory: () => new ProjectionEngine(projections.all(), eventStore, readStore, { log: projectionLog }, pipelineThreadFiles(options.config, eventStore, readStore, projections.module)),
        },
        AggregateExecutor,
        ReadModels,
        WriteThenRead,
        PlatformLifecycle,
        StateCollections,
      ],
      exports: [CONFIG, CLOCK, EVENT_STORE, READ_STORE, ProjectionEngine, AggregateExecutor, ReadModels, WriteThenRead, PlatformLifecycle, StateCollections],
    };
  }
}
