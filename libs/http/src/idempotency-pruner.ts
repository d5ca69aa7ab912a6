import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { LeaseManager } from '#platform/leases.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { Config } from '#platform/config.js';
import { CONFIG, EVENT_STORE } from '#platform/tokens.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { IDEMPOTENCY_STREAM_PREFIX, KEY_TTL_MS } from './idempotency.js';

/** Kept past the 24 hours promised, so a key is never pruned while a retry may still expect it. */
export const PRUNE_MARGIN_MS = 60 * 60 * 1000;

/**
 * Removes idempotency records older than the 24 hours a key is kept plus an hour's margin: every
 * `idempotency-<hash>` stream whose last event (claim, resumption, outcome) is that old is deleted
 * from the event store (`deleteStreamsOlderThan`), so their number stays bounded by a day's keys.
 * A retry with a pruned key is a new request. Runs every IDEMPOTENCY_PRUNE_MS (default 1 h, 0 = off)
 * in the worker holding the `idempotency-prune` lease (ROLE all or worker; libs/platform/src/leases.ts);
 * should two ever prune at once, it is harmless.
 */
@Injectable()
export class IdempotencyPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('idempotency');
  private timer: NodeJS.Timeout | null = null;
  private warned = false;

  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    @Optional() private readonly leases?: LeaseManager,
  ) {
    if (config.role !== 'api' && config.idempotencyPruneMs !== 0) leases?.register('idempotency-prune', { start: async () => this.schedule(), stop: async () => this.onApplicationShutdown() });
  }

  onApplicationBootstrap(): void {
    if (this.leases || this.config.role === 'api' || this.config.idempotencyPruneMs === 0) return;
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const tick = () => {
      this.pruneOnce().catch((error) => this.logger.error({ msg: 'pruning idempotency records failed; retrying at the next interval', err: String(error) }));
      this.timer = setTimeout(tick, this.config.idempotencyPruneMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, Math.min(60_000, this.config.idempotencyPruneMs));
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Deletes every record older than the retention (in pages of 1,000); returns how many. */
  async pruneOnce(): Promise<number> {
    if (!this.events.deleteStreamsOlderThan) {
      if (!this.warned) this.logger.warn(`the ${this.events.kind} event store cannot delete streams: idempotency records are kept`);
      this.warned = true;
      return 0;
    }
    const before = new Date(this.clock.now().getTime() - KEY_TTL_MS - PRUNE_MARGIN_MS).toISOString();
    let total = 0;
    for (;;) {
      const n = await this.events.deleteStreamsOlderThan(IDEMPOTENCY_STREAM_PREFIX, before, 1000);
      total += n;
      if (n < 1000) break;
    }
    if (total > 0) this.logger.log({ msg: 'pruned idempotency records', streams: total, before });
    return total;
  }
}
