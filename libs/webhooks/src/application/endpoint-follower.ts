import { Logger } from '@nestjs/common';
import type { Fence, ReadStore } from '#read-store/read-store.port.js';
import type { WebhookConfig } from '#platform/config.js';
import type { Clock } from '#shared/clock.js';
import { type FeedEntry, feedHorizon, withinHorizon } from '#events/read-models/event.read-model.js';
import { toPublic } from '#projection-runtime/projection.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';
import { RETRY_SCHEDULE_MS, deliveryDecider } from '../domain/delivery.decider.js';
import { eventEnabled, type SigningSecret, signingSecrets } from '../domain/webhook-endpoint.decider.js';
import { applyDelivery, type DeliveryDoc, DeliveryLog, queuedDelivery } from './delivery-log.js';
import { sendWebhook, type WebhookResponse } from './webhook-sender.js';

const FEED_BATCH = 500;
const SEND_BATCH = 100;

/** Is this feed entry for this endpoint? Its enabled types; a test event only for the endpoint it names. */
export function wants(endpoint: Pick<WebhookEndpointDoc, 'id' | 'enabled_events'>, entry: Pick<FeedEntry, 'type' | '_object_id'>): boolean {
  if (entry.type === 'webhook_endpoint.test') return entry._object_id === endpoint.id;
  return eventEnabled(endpoint.enabled_events, entry.type);
}

/** The lease of the endpoint's partition (libs/platform/src/leases.ts), as a follower needs it. */
export interface FollowerLease {
  readonly fence: Fence;
  valid(): boolean;
}

export interface FollowerDeps {
  /** The lease this endpoint is delivered under (null: none, a process without leases). */
  lease?(endpointId: string): FollowerLease | null;
  store: ReadStore;
  log: DeliveryLog;
  config: WebhookConfig;
  /** Wall clock: delivery times, `webhook-timestamp` (never a test clock's frozen time). */
  wall: Clock;
  /** The endpoint's last delivery gave up: disable it (an event says so). */
  disable(endpoint: WebhookEndpointDoc, event: string): Promise<void>;
  /** The plain secrets of signing entries (opened from the sealed store). */
  openSecrets(secrets: readonly SigningSecret[]): Promise<string[]>;
}

/**
 * One endpoint's delivery: follows the public feed (`events` read model, in global order) from its
 * own cursor, queues what the endpoint wants, and sends what is due, `concurrency` requests at a
 * time. Each endpoint has its own loop, so a slow or dead receiver only ever waits for itself.
 */
export class EndpointFollower {
  private readonly logger = new Logger('webhooks');
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly loop: Promise<void>;
  private woken = false;

  constructor(
    private endpoint: WebhookEndpointDoc,
    private readonly deps: FollowerDeps,
  ) {
    this.loop = this.run();
  }

  get id(): string {
    return this.endpoint.id;
  }

  get running(): boolean {
    return !this.stopped;
  }

  update(endpoint: WebhookEndpointDoc): void {
    this.endpoint = endpoint;
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    let idle = 0;
    while (!this.stopped) {
      let nextDue: number | null = null;
      let worked = false;
      try {
        this.woken = false;
        // Read the endpoint afresh each round: a rotated secret or a new URL applies to the next request.
        const current = await this.deps.store.get<WebhookEndpointDoc>('webhook_endpoints', this.endpoint.id);
        if (!current || current._deleted || current.status !== 'enabled') {
          this.stopped = true;
          break;
        }
        this.endpoint = current;
        worked = (await this.follow()) > 0;
        const sent = await this.sendDue();
        worked ||= sent.sent > 0;
        nextDue = sent.nextDue;
      } catch (error) {
        this.logger.error(`endpoint ${this.endpoint.id}: ${(error as Error).message}`);
      }
      if (worked || this.woken || this.stopped) {
        idle = 0;
        continue;
      }
      // Nothing to do: sleep until woken, the next retry is due, or the poll interval (shorter just after a wake-up,
      // as the feed's projector may still be writing what woke us).
      idle++;
      const poll = Math.min(this.deps.config.pollMs, 5 * 2 ** Math.min(idle, 10));
      const wait = nextDue === null ? poll : Math.max(0, Math.min(poll, nextDue - this.deps.wall.now().getTime()));
      await new Promise<void>((resolve) => {
        this.wakeUp = resolve;
        this.timer = setTimeout(resolve, wait);
      });
      if (this.timer) clearTimeout(this.timer);
      this.wakeUp = null;
    }
  }

  /** Feed entries after the cursor → queued deliveries, cursor moved in the same commit. Returns entries read. */
  private async follow(): Promise<number> {
    const endpoint = this.endpoint;
    const cursor = (await this.deps.log.cursor(endpoint.id)) ?? { id: endpoint.id, seq: endpoint._created_seq, event: endpoint._created_event };
    // Only as far as the feed is complete (read before the entries, so none can appear behind the cursor).
    const horizon = await feedHorizon(this.deps.store);
    const entries = withinHorizon(
      await this.deps.store.find<FeedEntry>('events', {
        where: { _account: endpoint._account, is_test: endpoint.is_test },
        orderBy: { field: '_seq', direction: 'asc' },
        after: { value: cursor.seq, id: cursor.event },
        limit: FEED_BATCH,
      }),
      horizon,
    );
    if (entries.length === 0) return 0;
    const now = this.deps.wall.now();
    const queued: DeliveryDoc[] = [];
    for (const entry of entries) {
      if (!wants(endpoint, entry)) continue;
      queued.push(queuedDelivery(endpoint.id, entry, now));
    }
    const last = entries[entries.length - 1];
    await this.deps.log.queue(queued, { id: endpoint.id, seq: last._seq, event: last.id }, this.deps.lease?.(endpoint.id)?.fence);
    return entries.length;
  }

  /** Sends the due deliveries: one chain per object (feed order within it), `concurrency` chains at once. */
  private async sendDue(): Promise<{ sent: number; nextDue: number | null }> {
    const pending = await this.deps.log.pending(this.endpoint.id, SEND_BATCH);
    const now = this.deps.wall.now().getTime();
    const due = pending.filter((d) => Date.parse(d.next_attempt_at!) <= now);
    const later = pending.find((d) => Date.parse(d.next_attempt_at!) > now);
    const nextDue = later ? Date.parse(later.next_attempt_at!) : null;
    if (due.length === 0) return { sent: 0, nextDue };
    const chains = new Map<string, DeliveryDoc[]>();
    for (const d of due.sort((a, b) => (a._seq < b._seq ? -1 : a._seq > b._seq ? 1 : 0))) {
      const chain = chains.get(d._object_id) ?? [];
      chain.push(d);
      chains.set(d._object_id, chain);
    }
    const queue = [...chains.values()];
    let sent = 0;
    let gaveUp: DeliveryDoc | null = null;
    const worker = async () => {
      for (let chain = queue.shift(); chain; chain = queue.shift()) {
        for (const delivery of chain) {
          if (this.stopped || gaveUp) return;
          // The partition's lease may have lapsed (a frozen process resumed): send nothing more.
          if (this.deps.lease?.(this.endpoint.id)?.valid() === false) return;
          const outcome = await this.attempt(delivery);
          sent++;
          if (outcome.status === 'failed') gaveUp = outcome;
          if (outcome.status !== 'succeeded') break; // a retry is pending: the object's later events go on their own times
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.config.concurrency, queue.length) }, worker));
    if (gaveUp) await this.deps.disable(this.endpoint, (gaveUp as DeliveryDoc).event);
    return { sent, nextDue };
  }

  private attempt(delivery: DeliveryDoc): Promise<DeliveryDoc> {
    return attemptDelivery(this.deps, this.endpoint, delivery);
  }
}

/** One attempt of a delivery to an endpoint, signed, its outcome and next state recorded in the delivery log (live, re-send or replay). */
export async function attemptDelivery(deps: Pick<FollowerDeps, 'store' | 'log' | 'config' | 'wall' | 'openSecrets'>, endpoint: WebhookEndpointDoc, delivery: DeliveryDoc): Promise<DeliveryDoc> {
  const entry = await deps.store.get<FeedEntry>('events', delivery.event);
  const at = deps.wall.now();
  const response: WebhookResponse = entry
    ? await sendWebhook({
        url: endpoint.url,
        mode: endpoint.is_test ? 'test' : 'live',
        id: entry.id,
        body: JSON.stringify(toPublic(entry)),
        secrets: await deps.openSecrets(signingSecrets(endpoint._secrets, at)),
        at,
        timeoutMs: deps.config.timeoutMs,
      })
    : { ok: false, status_code: null, error: 'event_missing', duration_ms: 0, response_body: null };
  const done = deps.wall.now();
  const schedule = deps.config.retryScale === 1 ? RETRY_SCHEDULE_MS : RETRY_SCHEDULE_MS.map((ms) => ms * deps.config.retryScale);
  const events = deliveryDecider.decide({ type: 'RecordAttempt', now: done, outcome: response, jitter: Math.random(), schedule }, delivery);
  const next = applyDelivery(delivery, events, done);
  await deps.log.recordAttempt(next, response, at);
  return next;
}
