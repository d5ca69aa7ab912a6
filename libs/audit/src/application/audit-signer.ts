import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EventStore } from '#event-store/event-store.port.js';
import type { Config } from '#platform/config.js';
import { CONFIG, EVENT_STORE } from '#platform/tokens.js';
import { FollowerAuditChain } from '../follower-chain.js';
import { AuditLog } from './audit-log.js';

/** How often the chaining follower (EventStoreDB) looks for events it was not woken for. */
const FOLLOW_POLL_MS = 1000;

/**
 * Signs the heads of the accounts whose audit chain moved, every AUDIT_SIGN_INTERVAL_MS (default 1 h,
 * 0 = only on demand), where the scheduler runs (SCHEDULER on, ROLE all or worker).
 * Two processes signing at once sign the same head twice: harmless (one document per account and size).
 * There too, on an event store whose chain is written by a follower (EventStoreDB), runs that follower.
 */
@Injectable()
export class AuditSigner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('audit');
  private timer: NodeJS.Timeout | null = null;
  private unfollow: (() => void) | null = null;

  constructor(
    private readonly audit: AuditLog,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(EVENT_STORE) private readonly events: EventStore,
  ) {}

  onApplicationBootstrap(): void {
    // Where the scheduler runs (SCHEDULER on, ROLE all or worker): the deadline worker's place.
    if (this.config.role === 'api' || !this.config.scheduler.enabled) return;
    const chain = this.events.auditChain;
    if (chain instanceof FollowerAuditChain) {
      this.unfollow = chain.follow((l) => this.events.onAppended(l), FOLLOW_POLL_MS, (error) => this.logger.error({ msg: 'chaining events into the audit log failed; retrying', err: String(error) }));
    }
    if (this.config.auditSignIntervalMs === 0) return;
    const tick = () => {
      this.audit
        .signMoved()
        .then((n) => n > 0 && this.logger.log({ msg: 'signed audit heads', accounts: n }))
        .catch((error) => this.logger.error({ msg: 'signing the audit heads failed; retrying at the next interval', err: String(error) }));
      this.timer = setTimeout(tick, this.config.auditSignIntervalMs);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, this.config.auditSignIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    this.unfollow?.();
    if (this.timer) clearTimeout(this.timer);
  }
}
