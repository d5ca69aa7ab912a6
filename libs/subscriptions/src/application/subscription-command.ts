import { AggregateExecutor } from '../../../platform/src/aggregate-executor.js';
import type { CommandContext } from '../../../platform/src/command-context.js';
import type { CommandResult } from '../../../platform/src/write-then-read.js';
import { type SubscriptionCommand, subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';

/** Decides one command against a subscription's stream; what every simple subscription use case does. */
export async function onSubscription(
  executor: AggregateExecutor,
  ctx: CommandContext,
  subscriptionId: string,
  command: (now: Date) => SubscriptionCommand,
): Promise<CommandResult> {
  const { position } = await executor.execute(subscriptionDecider, subscriptionStream(subscriptionId), command, ctx);
  return { id: subscriptionId, position };
}
