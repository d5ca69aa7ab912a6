import { Injectable } from '@nestjs/common';
import { CommandBus, IQuery, QueryBus } from '@nestjs/cqrs';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';

/** What every command handler returns: the object it wrote and where its last event landed. */
export interface CommandResult {
  id: string;
  position: string | null;
}

/**
 * Read-your-writes for controllers: run the command, wait until the projections have applied its
 * events, then answer with the query's result (the same read model a later GET serves).
 */
@Injectable()
export class WriteThenRead {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly projections: ProjectionEngine,
  ) {}

  async execute<R>(command: object, read: (result: CommandResult) => IQuery): Promise<R> {
    return this.queries.execute<IQuery, R>(read(await this.run(command)));
  }

  /** Runs the command and waits for the projections, for answers that are not a read model. */
  async run(command: object): Promise<CommandResult> {
    const result = await this.commands.execute<object, CommandResult>(command as never);
    await this.projections.waitFor(result.position);
    return result;
  }
}
