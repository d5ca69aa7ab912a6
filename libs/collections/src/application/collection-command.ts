import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import type { CommandResult } from '../../../platform/src/write-then-read.js';
import { type CollectionCommand, collectionDecider, collectionStream } from '../domain/collection.decider.js';

/** Decides one command against a collection's stream; what every simple collection use case does. */
export async function onCollection(
  executor: AggregateExecutor,
  ctx: CommandContext,
  collectionId: string,
  command: (now: Date) => CollectionCommand,
): Promise<CommandResult> {
  const { position } = await executor.execute(collectionDecider, collectionStream(collectionId), command, ctx);
  return { id: collectionId, position };
}
