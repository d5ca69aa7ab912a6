import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { type HeldLease, LeaseManager, WEBHOOK_PARTITIONS, webhookPartition, webhookUnit } from '#platform/leases.js';
import { CommandBus } from '@nestjs/cqrs';
import type { EventBrief, EventStore } from '#event-store/event-store.port.js';
import type { Config } from '#platform/config.js';
import { CONFIG, EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, SystemClock } from '#shared/clock.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { DeliveryLog } from './delivery-log.js';
import { DisableWebhookEndpointCommand } from './disable-webhook-endpoint.js';
import { openSigningSecrets } from './endpoint-secrets.js';
import { SecretVault } from '#platform/sealing.module.js';
import { EndpointFollower, type FollowerDeps, type FollowerLease } from './endpoint-follower.js';
import { ReplayWorker } from './replay-worker.js';
import { REPLAYS, type WebhookReplayDoc } from '../read-models/webhook-replay.read-model.js';
import { CancelWebhookReplayCommand, CompleteWebhookReplayCommand } from './complete-webhook-replay.js';

const PRUNE_EVERY_MS = 3600_000;

/** What a follower whose partition is no longer held here sees: act no more. */
const INVALID_LEASE: FollowerLease = { fence: { unit: 'webhooks/none', holder: '', epoch: 0 }, valid: () => false };

/** The read model the endpoints are listed from. */
const ENDPOINTS = 'webhook_endpoints';

/** What tells the dispatcher that the endpoints' read model changed: the projection pipeline, when it runs here. */
export interface EndpointChangeSource {
  onBatch(listener: (events: EventBrief[]) => void): () => void;
  watching(): boolean;
  waitFor(position: string, timeoutMs?: number): Promise<boolean>;
}

/**
 * The delivery worker (ROLE all or worker, unless WEBHOOKS=off): one `EndpointFollower` per enabled
 * endpoint, started and stopped as endpoints come and go; woken by the event store's `onAppended`
 * (and polling, for other processes' writes); prunes the delivery log past its retention hourly.
 *
 * The endpoints are partitioned (`webhooks/0` … `webhooks/7`, by a stable hash of the endpoint id,
 * libs/platform/src/leases.ts): this process delivers only for the partitions whose lease it holds,
 * so live workers share the endpoints and a dead worker's are taken over. A follower sends nothing
 * once its partition's lease is no longer valid, and queues deliveries (moves its cursor) with the
 * lease's fence.
 *
 * The endpoint list is read again on every poll, and at once when the projection pipeline (running
 * in this process) has committed a `webhook_endpoint.*` event; an append of any other event only
 * wakes the followers. Without the pipeline here, every wake reads the list.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private readonly followers = new Map<string, EndpointFollower>();
  /** Running replays (POST /v1/webhook_endpoints/{id}/replays) of the endpoints followed here: each its own loop. */
  private readonly replays = new Map<string, ReplayWorker>();
  private readonly wall: Clock = new SystemClock();
  private stopped = true;
  private loop: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private wakeUp: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private lastPrune = 0;
  /** The endpoint list must be read again at the next turn of the loop. */
  private endpointsChanged = true;
  private source: EndpointChangeSource | null = null;
  private unwatch: (() => void) | null = null;
  /** Endpoint list reads made (tests). */
  refreshes = 0;
  /** The partitions held here and their leases (null: no lease manager, every endpoint is this process's). */
  private readonly partitions: Map<number, HeldLease> | null;
  /** Partition changes, one at a time. */
  private changing: Promise<void> = Promise.resolve();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(READ_STORE) private readonly store: ReadStore,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    private readonly log: DeliveryLog,
    private readonly commands: CommandBus,
    private readonly vault: SecretVault,
    @Optional() engine?: ProjectionEngine,
    @Optional() leases?: LeaseManager,
  ) {
    if (engine) this.watchEndpointChanges(engine.pipeline);
    this.partitions = leases ? new Map() : null;
    if (leases && config.role !== 'api' && config.webhooks.enabled) {
      for (let p = 0; p < WEBHOOK_PARTITIONS; p++) {
        leases.register(webhookUnit(p), { start: (lease) => this.change(() => this.takePartition(p, lease)), stop: () => this.change(() => this.dropPartition(p)) });
      }
    }
  }

  private change(step: () => Promise<void>): Promise<void> {
    const next = this.changing.then(step);
    this.changing = next.catch(() => undefined);
    return next;
  }

  private async takePartition(partition: number, lease: HeldLease): Promise<void> {
    this.partitions!.set(partition, lease);
    this.endpointsChanged = true;
    if (this.stopped) this.start();
    else this.wakeUp?.();
  }

  /** The partition's followers stop (each finishes the attempt in flight) before its lease is handed back. */
  private async dropPartition(partition: number): Promise<void> {
    this.partitions!.delete(partition);
    const leaving = [...this.followers].filter(([id]) => webhookPartition(id) === partition);
    for (const [id] of leaving) this.followers.delete(id);
    const replaysLeaving = [...this.replays].filter(([, r]) => webhookPartition(r.endpointId) === partition);
    for (const [id] of replaysLeaving) this.replays.delete(id);
    await Promise.all([...leaving.map(([, f]) => f.stop()), ...replaysLeaving.map(([, r]) => r.stop())]);
    if (this.partitions!.size === 0) await this.stop();
  }

  /** Whether this process delivers for the endpoint now. */
  private mine(endpointId: string): boolean {
    return this.partitions === null || this.partitions.has(webhookPartition(endpointId));
  }

  /** The partitions held here (status, tests). */
  heldPartitions(): number[] {
    return this.partitions === null ? Array.from({ length: WEBHOOK_PARTITIONS }, (_, p) => p) : [...this.partitions.keys()].sort((a, b) => a - b);
  }

  /** Reads the endpoint list only when `source` has committed an endpoint's event (or on a poll). */
  watchEndpointChanges(source: EndpointChangeSource): () => void {
    this.unwatch?.();
    const off = source.onBatch((events) => {
      let last: string | null = null;
      for (const e of events) if (e.type.startsWith('webhook_endpoint.') || e.type.startsWith('webhook_replay.')) last = e.position;
      if (last === null) return;
      // Shown before it is applied: the list is read once the batch is committed (or given up on).
      void source.waitFor(last).catch(() => false).then(() => this.endpointChanged());
    });
    this.source = source;
    this.unwatch = () => {
      off();
      if (this.source === source) this.source = null;
    };
    return this.unwatch;
  }

  /** A replay was started: read the endpoints and replays at the next turn (at once). */
  refreshSoon(): void {
    this.endpointChanged();
  }

  private endpointChanged(): void {
    this.endpointsChanged = true;
    this.wakeUp?.();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.log.init();
    if (this.config.role === 'api' || !this.config.webhooks.enabled) return;
    // With leases, started when a partition is taken (LeaseLifecycle, after every module's bootstrap).
    if (this.partitions === null) this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.events.onAppended(() => this.wake());
    this.loop = (async () => {
      while (!this.stopped) {
        try {
          if (this.endpointsChanged || !this.source?.watching()) {
            this.endpointsChanged = false;
            await this.refresh();
          }
          // Pruning is everyone's: done by the holder of the first partition (or the only dispatcher).
          if ((this.partitions === null || this.partitions.has(0)) && this.wall.now().getTime() - this.lastPrune >= PRUNE_EVERY_MS) await this.prune();
        } catch (error) {
          this.endpointsChanged = true; // the list may not have been read: again at the next turn
          this.logger.error(`webhook dispatcher: ${(error as Error).message}`);
        }
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.timer = setTimeout(() => {
            this.endpointsChanged = true; // another process may have changed them
            resolve();
          }, this.config.webhooks.pollMs);
        });
        if (this.timer) clearTimeout(this.timer);
      }
    })();
  }

  /** Something was appended (or re-sent): every follower looks at the feed again. */
  wake(): void {
    this.wakeUp?.();
    for (const f of this.followers.values()) f.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wakeUp?.();
    await this.loop;
    await Promise.all([...this.followers.values(), ...this.replays.values()].map((f) => f.stop()));
    this.followers.clear();
    this.replays.clear();
  }

  /** Prunes attempts and finished deliveries older than the retention (WEBHOOK_RETENTION_DAYS). */
  async prune(now = this.wall.now()): Promise<number> {
    this.lastPrune = now.getTime();
    return this.log.prune(new Date(now.getTime() - this.config.webhooks.retentionDays * 86_400_000));
  }

  private async refresh(): Promise<void> {
    this.refreshes++;
    const seen = new Set<string>();
    let after: { value: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.find<WebhookEndpointDoc>(ENDPOINTS, {
        where: { status: 'enabled', _deleted: false },
        orderBy: { field: '_created', direction: 'asc' },
        after,
        limit: 500,
      });
      for (const endpoint of page) {
        if (!this.mine(endpoint.id)) continue;
        seen.add(endpoint.id);
        const follower = this.followers.get(endpoint.id);
        if (follower?.running) follower.update(endpoint);
        else this.followers.set(endpoint.id, new EndpointFollower(endpoint, this.deps));
      }
      if (page.length < 500) break;
      after = { value: page[page.length - 1]._created, id: page[page.length - 1].id };
    }
    for (const [id, follower] of this.followers) {
      if (!seen.has(id)) {
        this.followers.delete(id);
        void follower.stop();
      }
    }
    await this.refreshReplays(seen);
  }

  /** A worker for each running replay of an endpoint followed here (enabled, its partition held); others stop. */
  private async refreshReplays(endpoints: ReadonlySet<string>): Promise<void> {
    const running = new Set<string>();
    let after: { value: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.find<WebhookReplayDoc>(REPLAYS, { where: { status: 'running' }, orderBy: { field: '_created', direction: 'asc' }, after, limit: 500 });
      for (const replay of page) {
        if (!endpoints.has(replay._endpoint)) {
          // Its endpoint deleted: nothing will ever be sent, the replay ends canceled (a disabled one waits).
          if (this.mine(replay._endpoint) && (await this.store.get<WebhookEndpointDoc>(ENDPOINTS, replay._endpoint))?._deleted === true) await this.cancelReplay(replay);
          continue;
        }
        running.add(replay.id);
        if (!this.replays.get(replay.id)?.running) this.replays.set(replay.id, new ReplayWorker(replay.id, replay._endpoint, this.replayDeps));
      }
      if (page.length < 500) break;
      after = { value: page[page.length - 1]._created, id: page[page.length - 1].id };
    }
    for (const [id, worker] of this.replays) {
      if (!running.has(id) || !worker.running) {
        this.replays.delete(id);
        void worker.stop();
      }
    }
  }

  private async cancelReplay(replay: WebhookReplayDoc): Promise<void> {
    const owner = { accountId: replay._account, mode: replay.is_test ? ('test' as const) : ('live' as const), requestId: null, idempotencyKey: null };
    await this.commands.execute(new CancelWebhookReplayCommand(owner, replay._endpoint, replay.id));
  }

  /** The replays running here (tests). */
  runningReplays(): string[] {
    return [...this.replays].filter(([, r]) => r.running).map(([id]) => id);
  }

  private get replayDeps() {
    const deps = this.deps;
    return {
      ...deps,
      complete: async (replay: WebhookReplayDoc, delivered: number) => {
        await this.commands.execute(new CompleteWebhookReplayCommand(replay, delivered));
      },
    };
  }

  private get deps(): FollowerDeps {
    return {
      store: this.store,
      log: this.log,
      config: this.config.webhooks,
      wall: this.wall,
      lease: (endpointId) => (this.partitions === null ? null : (this.partitions.get(webhookPartition(endpointId)) ?? INVALID_LEASE)),
      disable: async (endpoint, event) => {
        this.logger.warn(`endpoint ${endpoint.id} disabled: the last retry of ${event} failed`);
        await this.commands.execute(new DisableWebhookEndpointCommand(endpoint, event));
      },
      openSecrets: (secrets) => openSigningSecrets(this.vault, secrets),
    };
  }
}
