import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { laterPosition } from '#event-store/positions.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { Scheduler } from '#scheduling/scheduler.js';
import { parseFrozenTime, testClockDecider, testClockStream } from '../domain/test-clock.decider.js';
import { ClockAdvances } from './clock-advances.js';

export class AdvanceTestClockCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly clockId: string,
    readonly frozenTime: string,
  ) {}
}


/**
 * Advances a clock: `test_clock.advancing`, then every deadline of the clock's objects up to the
 * target, in time order, each at its own time (the scheduler), then `test_clock.ready` at the target.
 * When the run fails nothing more is written: the clock stays `advancing` and the error is answered;
 * advancing again to the same target or a later one resumes.
 */
@CommandHandler(AdvanceTestClockCommand)
export class AdvanceTestClockHandler implements ICommandHandler<AdvanceTestClockCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly scheduler: Scheduler,
    private readonly advances: ClockAdvances,
  ) {}

  execute({ ctx, clockId, frozenTime }: AdvanceTestClockCommand): Promise<CommandResult> {
    return this.advances.run(clockId, async () => {
      const stream = testClockStream(clockId);
      const started = await this.executor.execute(
        testClockDecider,
        stream,
        (now) => ({ type: 'AdvanceTestClock' as const, owner: ctx, clockId, frozen_time: frozenTime, now }),
        ctx,
      );
      const target = started.state.advancing_to ?? parseFrozenTime(frozenTime);
      const run = await this.scheduler.runDue({ clock: clockId, from: new Date(started.state.fields!.frozen_time) }, new Date(target));
      const finished = await this.executor.execute(
        testClockDecider,
        stream,
        (now) => ({ type: 'FinishAdvance' as const, owner: ctx, clockId, frozen_time: target, now }),
        ctx,
      );
      return { id: clockId, position: laterPosition(laterPosition(started.position, run.position), finished.position) };
    });
  }
}
