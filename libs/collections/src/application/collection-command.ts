import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type CollectionCommand, collectionDecider, collectionStream } from '../domain/collection.decider.js';

/** The context a command about collection `collectionId` is decided in: at its test clock's time when it lives on one. */
export async function atCollectionTime(executor: AggregateExecutor, clocks: TestClockTime, ctx: CommandContext, collectionId: string): Promise<CommandContext> {
  const { state } = await executor.load(collectionDecider, collectionStream(collectionId));
  return clocks.contextFor(ctx, state.fields?.test_clock);
}

/**
 * Decides one command against a collection's stream; what every simple collection use case does.
 * With `clocks`, it is decided at the time of the collection's test clock when it lives on one.
 */
export async function onCollection(
  executor: AggregateExecutor,
  ctx: CommandContext,
  collectionId: string,
  command: (now: Date) => CollectionCommand,
  clocks?: TestClockTime,
): Promise<CommandResult> {
  const at = clocks ? await atCollectionTime(executor, clocks, ctx, collectionId) : ctx;
  const { position } = await executor.execute(collectionDecider, collectionStream(collectionId), command, at);
  return { id: collectionId, position };
}
