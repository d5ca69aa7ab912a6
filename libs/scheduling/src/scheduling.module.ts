import { Module } from '@nestjs/common';
import { SubscriptionsModule } from '#subscriptions/subscriptions.module.js';
import { DeadlineActions } from './deadline-actions.js';
import { Scheduler } from './scheduler.js';
import { SchedulerWorker } from './scheduler-worker.js';

/** Time: deadlines derived from events, turned into commands by the scheduler (worker loop, test clocks). */
@Module({
  imports: [SubscriptionsModule],
  providers: [DeadlineActions, Scheduler, SchedulerWorker],
  exports: [Scheduler, SchedulerWorker, DeadlineActions],
})
export class SchedulingModule {}
