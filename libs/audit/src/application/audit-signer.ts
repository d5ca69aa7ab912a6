import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { AuditLog } from './audit-log.js';

/**
 * Signs the heads of the accounts whose audit chain moved, every AUDIT_SIGN_INTERVAL_MS (default 1 h,
 * 0 = only on demand), where the deadline worker runs (ROLE all or worker), as the idempotency pruner.
 * Two processes signing at once sign the same head twice: harmless (one document per account and size).
 */
@Injectable()
export class AuditSigner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('audit');
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly audit: AuditLog,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api' || this.config.auditSignIntervalMs === 0) return;
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
    if (this.timer) clearTimeout(this.timer);
  }
}
