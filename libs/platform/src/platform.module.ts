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
import { LEASE_COLLECTIONS, LeaseManager } from './leases.js';
import { createEventStore, createReadStore, pipelineThreadFiles, withEventVersions, withPersonalData } from './stores.js';
import { CONFIG, EVENT_STORE, READ_STORE } from './tokens.js';
import { CUSTOMER_KEYS_SPEC, CustomerKeyring } from '#customers/personal-data/customer-keys.js';
import type { ThreadMasterKeys } from '#projection-runtime/pipeline-thread.js';
import { type MasterKeySource, SecretSealer } from '#shared/sealing.js';
import { MASTER_KEY_SOURCE } from './sealing.module.js';

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
    private readonly leases: LeaseManager,
  ) {
    stateCollections.register(...LEASE_COLLECTIONS);
    // The pipeline is a unit of work held by one live worker at a time (libs/platform/src/leases.ts).
    if (config.role !== 'api') leases.register('projections', { start: (lease) => engine.follow(lease.fence), stop: () => engine.stop() });
  }

  /** True once the stores answered and the projections started: what `/health/ready` reports. */
  ready = false;

  async onApplicationBootstrap(): Promise<void> {
    // A store briefly unreachable at start (a container still starting) is retried with backoff.
    await retryWithBackoff(
      async () => {
        await this.events.headPosition();
        await this.engine.init();
        await this.store.ensureCollections(this.stateCollections.all());
      },
      {
        maxMs: this.config.startupRetryMs,
        onRetry: (error, attempt, delay) =>
          this.logger.warn(`a store is not answering yet (attempt ${attempt}: ${redactUrl(String((error as Error)?.message ?? error))}); retrying in ${delay} ms`),
      },
    );
    // The pipeline shows the executor what other processes write: remembered states need no tail read.
    // It runs here only while this worker holds the `projections` lease (LeaseLifecycle starts the
    // leases once every module is up); `watching()` says when it does.
    if (this.config.role !== 'api') this.executor.watchForeignWrites(this.engine.pipeline);
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
    const readStore = options.readStore ?? createReadStore(options.config);
    // Personal data is encrypted at the port (docs/personal-data.md): the keys open once the master key is known.
    const keyring = new CustomerKeyring(readStore);
    let threadKeys: ThreadMasterKeys | null = null;
    // Event versions (docs/event-versions.md): older events read in their type's current shape.
    const eventStore = withEventVersions(withPersonalData(options.eventStore ?? createEventStore(options.config), keyring));
    return {
      module: PlatformModule,
      providers: [
        { provide: CONFIG, useValue: options.config },
        { provide: CLOCK, useValue: options.clock ?? new SystemClock() },
        { provide: EVENT_STORE, useValue: eventStore },
        { provide: READ_STORE, useValue: readStore },
        {
          provide: ProjectionEngine,
          useFactory: () => {
            const engine = new ProjectionEngine(projections.all(), eventStore, readStore, { log: projectionLog }, pipelineThreadFiles(options.config, eventStore, readStore, projections.module, () => threadKeys));
            // A write answered while the projections change worker waits out the takeover (TTL + renewal) and a catch-up.
            const leases = options.config.leases ?? { ttlMs: 10_000, renewMs: 2000 };
            engine.waitTimeoutMs = Math.max(10_000, leases.ttlMs + leases.renewMs + 10_000);
            return engine;
          },
        },
        {
          provide: LeaseManager,
          inject: [CONFIG],
          useFactory: (config: Config) => new LeaseManager(readStore, config.leases ?? { ttlMs: 10_000, renewMs: 2000 }),
        },
        {
          // The sealing module's master key (global): the keyring waits for it before opening a key.
          provide: CustomerKeyring,
          inject: [MASTER_KEY_SOURCE, StateCollections],
          useFactory: (source: MasterKeySource, collections: StateCollections) => {
            collections.register(CUSTOMER_KEYS_SPEC);
            const b64 = (k: Buffer) => k.toString('base64');
            threadKeys = { key: b64(source.key), kid: source.kid, previous: source.previous.map((p) => ({ key: b64(p.key), kid: p.kid })) };
            return keyring.attach(SecretSealer.fromMasterKey(source));
          },
        },
        AggregateExecutor,
        ReadModels,
        WriteThenRead,
        PlatformLifecycle,
        StateCollections,
      ],
      exports: [CONFIG, CLOCK, EVENT_STORE, READ_STORE, CustomerKeyring, ProjectionEngine, LeaseManager, AggregateExecutor, ReadModels, WriteThenRead, PlatformLifecycle, StateCollections],
    };
  }
}
