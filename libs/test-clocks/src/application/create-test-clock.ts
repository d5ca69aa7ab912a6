import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { newId } from '#shared/ids.js';
import { testClockDecider, testClockStream } from '../domain/test-clock.decider.js';

export class CreateTestClockCommand {
  constructor(
    readonly ctx: CommandContext,
    readonly body: { frozen_time: string; name?: string | null },
  ) {}
}

/** A new test clock, `ready` at `frozen_time` (test mode only). */
@CommandHandler(CreateTestClockCommand)
export class CreateTestClockHandler implements ICommandHandler<CreateTestClockCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, body }: CreateTestClockCommand): Promise<CommandResult> {
    const clockId = newId('clock');
    const { position } = await this.executor.execute(
      testClockDecider,
      testClockStream(clockId),
      (now) => ({ type: 'CreateTestClock' as const, owner: ctx, clockId, frozen_time: body.frozen_time, name: body.name, now }),
      ctx,
    );
    return { id: clockId, position };
  }
}
