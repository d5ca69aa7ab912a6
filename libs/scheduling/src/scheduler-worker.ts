import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Config } from '#platform/config.js';
import { CLOCK, type Clock } from '#shared/clock.js';
import { CONFIG } from '#platform/tokens.js';
import { Scheduler } from './scheduler.js';

/**
 * The worker's loop: every `SCHEDULER_POLL_MS` (default 1000) run the real-time deadlines due by the
 * clock's now. Runs where the projectors run (ROLE all or worker) unless SCHEDULER=off. Several
 * workers may run it at once: every deadline's command is decided with an expected revision.
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
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.role === 'api' || !this.config.scheduler.enabled) return;
    this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
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
