import { Global, Module } from '@nestjs/common';
import { SchedulingModule } from '#scheduling/scheduling.module.js';
import { AdvanceTestClockHandler } from './application/advance-test-clock.js';
import { ClockAdvances } from './application/clock-advances.js';
import { CreateTestClockHandler } from './application/create-test-clock.js';
import { DeleteTestClockHandler } from './application/delete-test-clock.js';
import { GetTestClockHandler } from './application/get-test-clock.js';
import { ListTestClocksHandler } from './application/list-test-clocks.js';
import { TestClockTime } from './application/test-clock-time.js';
import { TestClocksController } from './http/test-clocks.controller.js';

/**
 * Test clocks (test mode only). Global, so that customers, subscriptions and collections can decide
 * at a clock's time (`TestClockTime`) without importing this module, which imports the scheduler
 * (and through it those contexts): no import cycle.
 */
@Global()
@Module({
  imports: [SchedulingModule],
  controllers: [TestClocksController],
  providers: [TestClockTime, ClockAdvances, CreateTestClockHandler, AdvanceTestClockHandler, DeleteTestClockHandler, GetTestClockHandler, ListTestClocksHandler],
  exports: [TestClockTime],
})
export class TestClocksModule {}
