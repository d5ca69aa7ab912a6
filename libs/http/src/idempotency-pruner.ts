import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
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
 * where the deadline worker runs (ROLE all or worker); several processes pruning at once is harmless.
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
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api' || this.config.idempotencyPruneMs === 0) return;
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
