import { Logger } from '@nestjs/common';
import { type FeedEntry, feedHorizon, withinHorizon } from '#events/read-models/event.read-model.js';
import type { WebhookEndpointDoc } from '../read-models/webhook-endpoint.read-model.js';
import { REPLAYS, type ReplayProgressDoc, type WebhookReplayDoc } from '../read-models/webhook-replay.read-model.js';
import { queuedDelivery } from './delivery-log.js';
import { attemptDelivery, type FollowerDeps, wants } from './endpoint-follower.js';

const FEED_BATCH = 100;

export interface ReplayDeps extends Pick<FollowerDeps, 'store' | 'log' | 'config' | 'wall' | 'openSecrets' | 'lease'> {
  /** The replay went past its last event: `webhook_replay.completed` says so. */
  complete(replay: WebhookReplayDoc, delivered: number): Promise<void>;
}

/** Does the replay send this feed entry? Its types (a test event only to the endpoint it names) and its time bounds. */
export function replayWants(replay: Pick<WebhookReplayDoc, '_endpoint' | 'types' | '_from_time' | '_to_time'>, entry: Pick<FeedEntry, 'type' | '_object_id' | 'created'>): boolean {
  if (!wants({ id: replay._endpoint, enabled_events: replay.types }, entry)) return false;
  if (replay._from_time !== null && entry.created < replay._from_time) return false;
  if (replay._to_time !== null && entry.created > replay._to_time) return false;
  return true;
}

/** The last feed position a replay covers: its `to` event, or what the feed held when it was created. */
export const replayEnd = (replay: Pick<WebhookReplayDoc, '_to_seq' | '_until_seq'>): string =>
  replay._to_seq !== null && replay._to_seq < replay._until_seq ? replay._to_seq : replay._until_seq;

/**
 * One running replay: walks the account's feed (`events` read model, in global order) from its
 * checkpoint, and sends each event it wants to its endpoint, one at a time, at most
 * WEBHOOK_REPLAY_RATE a second. Its own loop, beside the endpoint's live follower: live deliveries
 * never wait behind it. A send is signed as every delivery is (`webhook-id` the event's id), recorded
 * in the delivery log with `replay: whr_…` under a delivery of its own (`<endpoint>:<seq>:<replay>`);
 * a failed one is retried on the normal schedule by the endpoint's follower. The checkpoint
 * (`webhook_replay_progress`) moves after each send, so a restart resumes after the last event sent
 * (at most the attempt in flight is sent again). Before each send the replay's status is read:
 * canceled, it stops.
 */
export class ReplayWorker {
  private readonly logger = new Logger('webhooks');
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private readonly loop: Promise<void>;
  private lastSend = 0;

  constructor(
    readonly id: string,
    readonly endpointId: string,
    private readonly deps: ReplayDeps,
  ) {
    this.loop = this.run();
  }

  get running(): boolean {
    return !this.stopped;
  }

  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
    }).then(() => {
      this.wakeUp = null;
    });
  }

  private leaseLost(): boolean {
    return this.deps.lease?.(this.endpointId)?.valid() === false;
  }

  /** The replay as it is now; false (and stopped) once it is no longer running. */
  private async stillRunning(): Promise<WebhookReplayDoc | null> {
    const replay = await this.deps.store.get<WebhookReplayDoc>(REPLAYS, this.id);
    if (!replay || replay.status !== 'running' || this.leaseLost()) {
      this.stopped = true;
      return null;
    }
    return replay;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      try {
        const replay = await this.stillRunning();
        if (!replay) break;
        const endpoint = await this.deps.store.get<WebhookEndpointDoc>('webhook_endpoints', replay._endpoint);
        if (!endpoint || endpoint._deleted) {
          this.stopped = true;
          break;
        }
        // A disabled endpoint receives nothing: the replay waits (the dispatcher stops it meanwhile).
        if (endpoint.status === 'enabled') worked = await this.step(replay, endpoint);
      } catch (error) {
        this.logger.error(`replay ${this.id}: ${(error as Error).message}`);
      }
      if (!worked && !this.stopped) await this.sleep(this.deps.config.pollMs);
    }
  }

  /** One batch of the feed after the checkpoint. Returns whether it moved. */
  private async step(replay: WebhookReplayDoc, endpoint: WebhookEndpointDoc): Promise<boolean> {
    let progress: ReplayProgressDoc = (await this.deps.log.replayProgress(replay.id)) ?? { id: replay.id, seq: replay._from_seq ?? '', event: replay._from_event, delivered: 0 };
    const end = replayEnd(replay);
    // Only as far as the feed is complete (as the live follower does).
    const horizon = await feedHorizon(this.deps.store);
    const entries = withinHorizon(
      await this.deps.store.find<FeedEntry>('events', {
        where: { _account: replay._account, is_test: replay.is_test },
        orderBy: { field: '_seq', direction: 'asc' },
        after: { value: progress.seq, id: progress.event ?? '' },
        limit: FEED_BATCH,
      }),
      horizon,
    );
    if (entries.length === 0 || entries[0]._seq > end) {
      if (horizon !== null && (horizon >= end || entries.length > 0)) {
        await this.deps.complete(replay, progress.delivered);
        this.stopped = true;
        return true;
      }
      return false;
    }
    const fence = () => this.deps.lease?.(this.endpointId)?.fence;
    let moved = false;
    for (const entry of entries) {
      if (entry._seq > end) break;
      if (replayWants(replay, entry)) {
        await this.pace();
        // Cancel stops it within a step: read the status before every send.
        if (this.stopped || !(await this.stillRunning())) break;
        if (moved) await this.deps.log.saveReplayProgress(progress, fence());
        moved = false;
        const now = this.deps.wall.now();
        const queued = queuedDelivery(endpoint.id, entry, now, replay.id);
        this.lastSend = performance.now();
        await attemptDelivery(this.deps, endpoint, queued);
        progress = { ...progress, seq: entry._seq, event: entry.id, delivered: progress.delivered + 1 };
        await this.deps.log.saveReplayProgress(progress, fence());
      } else {
        progress = { ...progress, seq: entry._seq, event: entry.id };
        moved = true;
      }
    }
    if (moved && !this.stopped) await this.deps.log.saveReplayProgress(progress, fence());
    return true;
  }

  /** At most WEBHOOK_REPLAY_RATE sends a second. */
  private async pace(): Promise<void> {
    const gap = 1000 / this.deps.config.replayRate;
    const wait = this.lastSend + gap - performance.now();
    if (wait > 0) await this.sleep(wait);
  }
}
