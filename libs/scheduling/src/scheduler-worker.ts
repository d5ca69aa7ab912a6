import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import type { Config } from '#platform/config.js';
import { CLOCK, type Clock } from '#shared/clock.js';
import { CONFIG } from '#platform/tokens.js';
import { type HeldLease, LeaseManager } from '#platform/leases.js';
import { Scheduler } from './scheduler.js';

/**
 * The worker's loop: every `SCHEDULER_POLL_MS` (default 1000) run the real-time deadlines due by the
 * clock's now. Runs in the worker holding the `scheduler` lease (ROLE all or worker; never taken
 * with SCHEDULER=off; libs/platform/src/leases.ts). Should two ever act at once (a takeover while
 * a frozen holder resumes), every deadline's command is decided with an expected revision.
 */
@Injectable()
export class SchedulerWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('scheduler');
  private stopped = true;
  private loop: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly scheduler: Scheduler,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() leases?: LeaseManager,
  ) {
    if (config.role === 'api' || !config.scheduler.enabled) return;
    if (leases) leases.register('scheduler', { start: async (lease) => this.start(lease), stop: () => this.stop() });
    else this.unleased = true;
  }

  /** Started without a lease manager (a module tested on its own): at bootstrap, as before leases. */
  private unleased = false;
  private lease: HeldLease | null = null;

  onApplicationBootstrap(): void {
    if (this.unleased) this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(lease: HeldLease | null = null): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lease = lease;
    this.loop = (async () => {
      while (!this.stopped) {
        // The holder's own clock says the lease may have lapsed: act no more (the manager stops this loop).
        if (this.lease && !this.lease.valid()) break;
        try {
          await this.scheduler.runDue({ clock: null }, this.clock.now());
        } catch (error) {
          this.logger.error(`scheduler run failed: ${(error as Error).message}`);
        }
        await new Promise<void>((resolve) => {
          this.timer = setTimeout(resolve, this.config.scheduler.pollMs);
          this.wake = resolve;
        });
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
  }
}
