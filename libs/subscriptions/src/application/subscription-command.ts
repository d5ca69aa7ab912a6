import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { TestClockTime } from '#test-clocks/application/test-clock-time.js';
import { type SubscriptionCommand, subscriptionDecider, subscriptionStream } from '../domain/subscription.decider.js';

/**
 * Decides one command against a subscription's stream; what every simple subscription use case does.
 * With `clocks`, it is decided at the time of the subscription's test clock when it lives on one.
 */
export async function onSubscription(
  executor: AggregateExecutor,
  ctx: CommandContext,
  subscriptionId: string,
  command: (now: Date) => SubscriptionCommand,
  clocks?: TestClockTime,
): Promise<CommandResult> {
  let at = ctx;
  if (clocks) {
    const { state } = await executor.load(subscriptionDecider, subscriptionStream(subscriptionId));
    at = await clocks.contextFor(ctx, state.fields?.test_clock);
  }
  const { position } = await executor.execute(subscriptionDecider, subscriptionStream(subscriptionId), command, at);
  return { id: subscriptionId, position };
}
