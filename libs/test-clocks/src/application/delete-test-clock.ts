import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { testClockDecider, testClockStream } from '../domain/test-clock.decider.js';
import { ClockAdvances } from './clock-advances.js';

export class DeleteTestClockCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly clockId: string,
  ) {}
}

/**
 * Deletes a clock (404 afterwards). Its objects stay, at the clock's last frozen time, and no advance
 * moves them any more. Refused (409) while this process is advancing the clock.
 */
@CommandHandler(DeleteTestClockCommand)
export class DeleteTestClockHandler implements ICommandHandler<DeleteTestClockCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly advances: ClockAdvances,
  ) {}

  async execute({ ctx, clockId }: DeleteTestClockCommand): Promise<CommandResult> {
    this.advances.refuseIfRunning(clockId);
    const { position } = await this.executor.execute(
      testClockDecider,
      testClockStream(clockId),
      (now) => ({ type: 'DeleteTestClock' as const, owner: ctx, clockId, now }),
      ctx,
    );
    return { id: clockId, position };
  }
}
